import { UsageOutcome, usageEvent } from "@gateway/billing";
import type { UsageEvent } from "@gateway/proto/events/v1/events";
import type { VideoTask } from "../database.js";
import type { VideoModel } from "../tasks/find-video-model.js";
import { ENDPOINT } from "../tasks/task-rules.js";

/**
 * The usage event of a completed task: the seconds of video the vendor delivered at the
 * catalogue's per-second price, under the submitting request's id (so a repeated publish is
 * dropped by JetStream and the ledger's unique request_id). Failed tasks publish nothing.
 */
export function videoUsageEvent(task: VideoTask, video: VideoModel, seconds: number): UsageEvent {
  const facts = {
    caller: {
      requestId: task.requestId,
      accountId: task.accountId,
      keyId: task.keyId,
      modelGroup: task.modelGroup,
      // Not part of the event: ledger prices with the key's group multiplier when it records usage.
      multiplierBasisPoints: 0,
    },
    model: video.model,
    channel: video.model.channels.find((channel) => channel.name === task.channel) ?? video.channel,
    endpoint: ENDPOINT,
    stream: false,
    startedAt: task.createdAt.getTime(),
  };
  return usageEvent(facts, {
    usage: undefined,
    estimated: false,
    outcome: UsageOutcome.USAGE_OUTCOME_OK,
    units: { count: seconds, unit: "video_second", priceMicros: video.rules.price_per_second },
  });
}
