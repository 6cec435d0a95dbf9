import { type AnswerDelivery, type Outcome, type RequestFacts, UsageOutcome, usageEvent } from "@gateway/billing";
import { GatewayError, startPiece } from "@gateway/platform";
import { trace } from "@opentelemetry/api";
import { pricedAsServed } from "../billing/surcharges.js";
import { genAiAttributes } from "../metrics/gen-ai-attributes.js";
import { type Exchange, requestLogOf } from "../request-log/request-log.js";
import type { RouterDependencies } from "./router-dependencies.js";

/**
 * Marks the end of a request: publishes its usage event and its request log entry and frees
 * its concurrency slot. Called before the answer (or a stream's end) is handed to gRPC: the
 * event is in the usage journal when this returns, so a router killed after answering still
 * bills it. The event's figures (latency) are taken now; the log entry, whose serialising
 * and redaction cost most, is built when the publisher sends, after the answer left (a kill
 * in between bills the request without its log entry), and journaled from then on. With `delivery` (a unary answer not
 * handed over yet), a router killed before the answer left releases the request unbilled.
 */
export function publishUsage(
  deps: RouterDependencies,
  facts: RequestFacts,
  result: Outcome,
  exchange: Exchange,
  delivery?: AnswerDelivery,
) {
  const eventing = startPiece("usage");
  const event = usageEvent(pricedAsServed(facts, result.usage), result);
  eventing?.();
  const counting = startPiece("metrics");
  deps.metrics.requestFinished(facts, result);
  counting?.();
  const tracing = startPiece("spans");
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(genAiAttributes(facts, result));
  tracing?.();
  const journaling = startPiece("usage");
  deps.usage.publish(
    event,
    () => {
      try {
        return requestLogOf(deps.requestLog, facts.caller, exchange);
      } catch (error) {
        // A log entry that cannot be built must not cost the charge.
        deps.logger.error(
          { err: error, request_id: event.requestId },
          "request log entry failed; usage sent without it",
        );
        return undefined;
      }
    },
    delivery,
  );
  journaling?.();
  const releasing = startPiece("admission");
  if (!deps.leases?.release(facts.caller.requestId)) void deps.rateLimits.release(facts.caller);
  releasing?.();
}

/**
 * The usage event of a request that ended without an answer: the client left or the vendor
 * failed. `request` builds the request as the log keeps it.
 */
export function publishFailure(
  deps: RouterDependencies,
  facts: RequestFacts,
  error: unknown,
  signal: AbortSignal,
  request: () => unknown,
) {
  const outcome = signal.aborted
    ? UsageOutcome.USAGE_OUTCOME_CLIENT_CANCELLED
    : UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR;
  const result = { usage: undefined, estimated: false, outcome, ...(error instanceof GatewayError && { error }) };
  publishUsage(deps, facts, result, { request, ...(!signal.aborted && { error }) });
}
