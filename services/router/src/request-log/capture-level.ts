import { LogCapture } from "@gateway/proto/common/v1/common";

export type CaptureSetting = "full" | "metadata" | "off";

const levels: Record<CaptureSetting, LogCapture> = {
  full: LogCapture.LOG_CAPTURE_FULL,
  metadata: LogCapture.LOG_CAPTURE_METADATA,
  off: LogCapture.LOG_CAPTURE_OFF,
};

/** The deployment's configured level as the contracts' enum. */
export const captureLevelOf = (setting: CaptureSetting): LogCapture => levels[setting];

/** The account's own level when it set one (unset or unspecified follows the deployment). */
export const effectiveCapture = (account: LogCapture | undefined, deployment: LogCapture): LogCapture =>
  account !== undefined && Object.values(levels).includes(account) ? account : deployment;
