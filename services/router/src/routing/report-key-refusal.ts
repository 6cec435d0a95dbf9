import type { Logger } from "@gateway/platform";
import type { RouterMetrics } from "../metrics/router-metrics.js";
import type { KeyRefused } from "./run-with-failover.js";

/** Tells the operator a key was disabled (and its channel, when it was the last): a warn line and the metrics. */
export function reportKeyRefusal(
  logger: Logger,
  metrics: RouterMetrics,
  { channel, error, channelDisabled }: KeyRefused,
) {
  const reason = error.keyRefusal!;
  metrics.keyDisabled(channel.name, reason, channelDisabled);
  logger.warn(
    {
      channel: channel.name,
      vendor: channel.vendor,
      key_id: channel.key.id,
      key: channel.key.masked,
      reason,
      vendor_status: error.vendorStatus,
      vendor_message: error.vendorMessage,
      channel_disabled: channelDisabled,
    },
    channelDisabled
      ? "vendor refused the channel's last key: channel disabled until an operator re-enables a key"
      : "vendor refused a channel key: key disabled, the channel serves with its others",
  );
}
