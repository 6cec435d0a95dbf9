import { pino } from "pino";
import { currentRequestId } from "./request-context.js";
import { currentTraceId } from "./telemetry.js";

export type Logger = pino.Logger;

/** Structured JSON logs; every line written inside a span carries its trace id, and inside a request its id. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const traceId = currentTraceId();
      const requestId = currentRequestId();
      return { ...(traceId && { trace_id: traceId }), ...(requestId && { request_id: requestId }) };
    },
    redact: { paths: ["*.authorization", "*.api_key", "*.apiKey", "*.key"], censor: "[redacted]" },
  });
}
