import { UsageOutcome } from "@gateway/billing";
import { inSpan, invalidRequest, serverError, type UnaryContext } from "@gateway/platform";
import type { Transcription, TranscriptionRequest } from "@gateway/proto/router/v1/audio";
import { mediaAdapterFor } from "../adapters/openai-media/media-adapter.js";
import { unitsCostMicros } from "../billing/worst-case-cost.js";
import { audioDuration } from "../media/audio-duration.js";
import { reportedDurationSeconds } from "../media/reported-duration.js";
import { transcriptionAnswerLog } from "../request-log/answer-bodies.js";
import { transcriptionRequestLog } from "../request-log/request-bodies.js";
import { sendHeadersBeforeVendor } from "./call-headers.js";
import { publishFailure, publishUsage } from "./publish-usage.js";
import { admitCost, callWithFailover, resolveRoute } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** POST /v1/audio/transcriptions: the vendor's transcript as sent, billed per (started) audio second. */
export function createTranscription(deps: RouterDependencies) {
  return async (request: TranscriptionRequest, context: UnaryContext): Promise<Transcription> => {
    const { signal } = context;
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
    // The file's own length (from its container, estimated from its size when unreadable) is the cost reserved.
    const fileDuration = await audioDuration(Buffer.from(file.data));
    const expectedSeconds = Math.max(1, Math.ceil(fileDuration.seconds));
    const worstCase = unitsCostMicros(expectedSeconds, rules.price_per_second, facts.caller.multiplierBasisPoints);
    await admitCost(deps, facts, 0, worstCase);
    await sendHeadersBeforeVendor(context, facts);
    const logged = () => transcriptionRequestLog(request);
    return inSpan("router.transcription", { "gateway.model": facts.model.id }, async () => {
      try {
        const transcript = await callWithFailover(deps, request, facts, signal, (call) =>
          mediaAdapterFor(call.channel).transcribe(call),
        );
        // Text formats state no length; the file's own is used then.
        const reported = reportedDurationSeconds(transcript.text, transcript.contentType);
        const duration = reported === undefined ? fileDuration : { seconds: reported, estimated: false };
        const units = {
          count: Math.max(1, Math.ceil(duration.seconds)),
          unit: "audio_second",
          priceMicros: rules.price_per_second,
        };
        const outcome = UsageOutcome.USAGE_OUTCOME_OK;
        const answer: Transcription = { contentType: transcript.contentType, body: transcript.text };
        const result = { usage: undefined, estimated: duration.estimated, outcome, units };
        publishUsage(deps, facts, result, { request: logged, answer: () => transcriptionAnswerLog(answer) }, context);
        return answer;
      } catch (error) {
        publishFailure(deps, facts, error, signal, logged);
        throw error;
      }
    });
  };
}
