import type { Transcription, TranscriptionRequest } from "@gateway/proto/router/v1/audio";
import { inSpan, invalidRequest, serverError } from "@gateway/shared";
import { mediaAdapterFor } from "../adapters/openai-media/media-adapter.js";
import { unitsCostMicros } from "../billing/worst-case-cost.js";
import { audioDuration } from "../media/audio-duration.js";
import { reportedDurationSeconds } from "../media/reported-duration.js";
import { UsageOutcome, usageEvent } from "../usage/request-accounting.js";
import { publishFailure } from "./create-chat-completion.js";
import { admitCost, callWithFailover, resolveRoute } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** POST /v1/audio/transcriptions: the vendor's transcript as sent, billed per (started) audio second. */
export function createTranscription(deps: RouterDependencies) {
  return async (request: TranscriptionRequest, { signal }: { signal: AbortSignal }): Promise<Transcription> => {
    const facts = resolveRoute(deps, request, "/v1/audio/transcriptions");
    const rules = facts.model.audio;
    if (!rules) throw serverError(`The catalogue has no audio rules for ${facts.model.id}.`);
    const format = request.responseFormat ?? "json";
    if (!(rules.response_formats as string[]).includes(format)) {
      throw invalidRequest(
        `Invalid value for 'response_format': '${format}' is not supported by ${facts.model.id}; use ${rules.response_formats.join(", ")}.`,
        "response_format",
        "unsupported_value",
      );
    }
    if (!request.file) throw invalidRequest("Missing required parameter: 'file'.", "file");
    const file = request.file;
    // The file's own length (exact for WAV, estimated from its size otherwise) is the cost reserved.
    const expectedSeconds = Math.max(1, Math.ceil(audioDuration(Buffer.from(file.data)).seconds));
    const worstCase = unitsCostMicros(expectedSeconds, rules.price_per_second, facts.caller.multiplierBasisPoints);
    await admitCost(deps, facts, 0, worstCase);
    return inSpan("router.transcription", { "gateway.model": facts.model.id }, async () => {
      try {
        const transcript = await callWithFailover(deps, request, facts, signal, (call) =>
          mediaAdapterFor(call.channel).transcribe(call),
        );
        // Text formats state no length; the file's own (exact for WAV) is used then.
        const reported = reportedDurationSeconds(transcript.text, transcript.contentType);
        const duration =
          reported === undefined ? audioDuration(Buffer.from(file.data)) : { seconds: reported, estimated: false };
        const units = {
          count: Math.max(1, Math.ceil(duration.seconds)),
          unit: "audio_second",
          priceMicros: rules.price_per_second,
        };
        const outcome = UsageOutcome.USAGE_OUTCOME_OK;
        deps.usage.publish(usageEvent(facts, { usage: undefined, estimated: duration.estimated, outcome, units }));
        return { contentType: transcript.contentType, body: transcript.text };
      } catch (error) {
        publishFailure(deps, facts, error, signal);
        throw error;
      }
    });
  };
}
