import { LogCapture } from "@gateway/proto/common/v1/common";

/** What ledger.accounts.log_capture may hold; NULL there means the deployment's default. */
export const LOG_CAPTURE_LEVELS = ["full", "metadata", "off"] as const;
export type LogCaptureLevel = (typeof LOG_CAPTURE_LEVELS)[number];

const protoLevels: Record<LogCaptureLevel, LogCapture> = {
  full: LogCapture.LOG_CAPTURE_FULL,
  metadata: LogCapture.LOG_CAPTURE_METADATA,
  off: LogCapture.LOG_CAPTURE_OFF,
};

/** The stored level as the contracts' enum; undefined (field unset) for the deployment's default. */
export function logCaptureOf(stored: string | null): LogCapture | undefined {
  return stored === null ? undefined : protoLevels[stored as LogCaptureLevel];
}
