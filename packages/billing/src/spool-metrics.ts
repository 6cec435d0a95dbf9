import { gatewayMeter } from "@gateway/platform";
import type { UsagePublisher } from "./usage-publisher.js";

/** Exports how much usage waits in this process's spool: above zero means NATS is refusing events. */
export function observeUsageSpool(publisher: UsagePublisher): void {
  gatewayMeter()
    .createObservableGauge("gateway_usage_spool_bytes", {
      description: "Usage events spooled on disk until NATS takes them",
      unit: "By",
    })
    .addCallback((result) => result.observe(publisher.spooledBytes()));
}
