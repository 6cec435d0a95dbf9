import { pino } from "pino";
import { currentTraceId } from "./telemetry.js";

export type Logger = pino.Logger;

/** Structured JSON logs; every line written inside a span carries its trace id. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const traceId = currentTraceId();
      return traceId ? { trace_id: traceId } : {};
    },
    redact: { paths: ["*.authorization", "*.api_key", "*.apiKey", "*.key"], censor: "[redacted]" },
  });
}
