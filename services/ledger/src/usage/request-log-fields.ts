import { LogCapture } from "@gateway/proto/common/v1/common";
import type { RequestLog } from "@gateway/proto/events/v1/events";

const captureNames = new Map([
  [LogCapture.LOG_CAPTURE_FULL, "full"],
  [LogCapture.LOG_CAPTURE_METADATA, "metadata"],
]);

export interface RequestLogFields {
  /** null: nothing is logged for the request. */
  log_capture: string | null;
  request_body: string | null;
  response_body: string | null;
  truncated: boolean;
  error_message: string | null;
}

const notLogged: RequestLogFields = {
  log_capture: null,
  request_body: null,
  response_body: null,
  truncated: false,
  error_message: null,
};

/** Postgres text cannot hold NUL, and one refused row would fail the whole batch on every retry. */
const storable = (text: string) => (text.includes("\0") ? text.replaceAll("\0", "") : text) || null;

/**
 * What the log keeps of a request: bodies only at capture full, the error at both levels.
 * An event without a log, or captured at any other level, keeps nothing.
 */
export function requestLogFields(log: RequestLog | undefined): RequestLogFields {
  const capture = log && captureNames.get(log.capture);
  if (!log || !capture) return notLogged;
  const full = log.capture === LogCapture.LOG_CAPTURE_FULL;
  return {
    log_capture: capture,
    request_body: full ? storable(log.requestBody) : null,
    response_body: full ? storable(log.responseBody) : null,
    truncated: full && log.truncated,
    error_message: storable(log.errorMessage),
  };
}
