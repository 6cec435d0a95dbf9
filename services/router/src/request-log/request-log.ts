import { GatewayError, redactSecrets, serverError } from "@gateway/platform";
import { type Caller, LogCapture } from "@gateway/proto/common/v1/common";
import type { RequestLog } from "@gateway/proto/events/v1/events";
import { effectiveCapture } from "./capture-level.js";
import { fitBodies } from "./fit-bodies.js";

export interface RequestLogSettings {
  // The deployment's level, for accounts that set none.
  capture: LogCapture;
  // The most bytes one entry keeps of its request and response bodies together.
  maxBytes: number;
}

/**
 * What one request exchanged with the client, in the shapes of request-bodies and answer-bodies.
 * The shapes are built only when the entry is kept in full, so they are given as functions.
 */
export interface Exchange {
  request: () => unknown;
  answer?: () => unknown;
  // A streamed answer stopped being collected at the cap.
  answerTruncated?: boolean;
  // What failed, as thrown; undefined when the client saw no error (it succeeded or left).
  error?: unknown;
}

// Secrets are redacted in each string before it is escaped, so escapes cannot hide them.
const redactedJson = (value: unknown) =>
  value === undefined
    ? ""
    : JSON.stringify(value, (_key, field: unknown) => (typeof field === "string" ? redactSecrets(field) : field));

/** Unknown errors reach the client as the generic server error, so that is what it saw. */
const clientMessage = (error: unknown) => (error instanceof GatewayError ? error : serverError()).message;

/** The request's log entry at its account's (or the deployment's) capture level; undefined when off. */
export function requestLogOf(settings: RequestLogSettings, caller: Caller, exchange: Exchange): RequestLog | undefined {
  const capture = effectiveCapture(caller.logCapture, settings.capture);
  if (capture === LogCapture.LOG_CAPTURE_OFF) return undefined;
  const errorMessage = exchange.error === undefined ? "" : redactSecrets(clientMessage(exchange.error));
  if (capture !== LogCapture.LOG_CAPTURE_FULL) {
    return { capture, requestBody: "", responseBody: "", truncated: false, errorMessage };
  }
  const bodies = fitBodies(redactedJson(exchange.request()), redactedJson(exchange.answer?.()), settings.maxBytes);
  return {
    capture,
    requestBody: bodies.request,
    responseBody: bodies.response,
    truncated: bodies.truncated || exchange.answerTruncated === true,
    errorMessage,
  };
}

/** How many bytes of a streamed answer to collect for the request's log entry: none unless it is kept in full. */
export const streamAnswerBudget = (settings: RequestLogSettings, caller: Caller): number =>
  effectiveCapture(caller.logCapture, settings.capture) === LogCapture.LOG_CAPTURE_FULL ? settings.maxBytes : 0;
