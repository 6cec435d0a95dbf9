import type { LeasedAdmission, RequestHolder } from "@gateway/billing";
import { gatewayMeter } from "@gateway/platform";
import type { UsageEvent } from "@gateway/proto/events/v1/events";

/**
 * What router does with the usage a killed predecessor journaled for answers that never left
 * it: their clients got an error, so they are not billed. Each request's reservation is freed
 * now instead of at its expiry, and each is counted: the vendor was paid for an answer the
 * gateway could not deliver, a charge the operator bears.
 */
export function releaseUndelivered(reservations: {
  release(holder: RequestHolder, lease?: LeasedAdmission): Promise<void>;
}) {
  const undelivered = gatewayMeter().createCounter("gateway_usage_undelivered_total", {
    description: "Answers lost with a killed router after the vendor call: released unbilled, by vendor and model",
  });
  return (events: readonly UsageEvent[]): void => {
    for (const event of events) {
      undelivered.add(1, { vendor: event.vendor, model: event.model });
      // One admitted from an admission lease (maybe a predecessor's) gives its worst case back to it.
      const lease = event.leaseId ? { id: event.leaseId, micros: BigInt(event.leasedMicros ?? 0) } : undefined;
      void reservations.release(event, lease);
    }
  };
}
