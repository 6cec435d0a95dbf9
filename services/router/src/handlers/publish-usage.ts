import { GatewayError } from "@gateway/shared";
import { type Exchange, requestLogOf } from "../request-log/request-log.js";
import { type Outcome, type RequestFacts, UsageOutcome, usageEvent } from "../usage/request-accounting.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** Publishes the usage event of a finished request, with its request log entry. */
export function publishUsage(deps: RouterDependencies, facts: RequestFacts, result: Outcome, exchange: Exchange) {
  deps.usage.publish(usageEvent(facts, result, requestLogOf(deps.requestLog, facts.caller, exchange)));
}

/**
 * The usage event of a request that ended without an answer: the client left or the vendor
 * failed. `request` is the request as the log keeps it.
 */
export function publishFailure(
  deps: RouterDependencies,
  facts: RequestFacts,
  error: unknown,
  signal: AbortSignal,
  request: unknown,
) {
  const outcome = signal.aborted
    ? UsageOutcome.USAGE_OUTCOME_CLIENT_CANCELLED
    : UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR;
  const result = { usage: undefined, estimated: false, outcome, ...(error instanceof GatewayError && { error }) };
  publishUsage(deps, facts, result, { request, ...(!signal.aborted && { error }) });
}
