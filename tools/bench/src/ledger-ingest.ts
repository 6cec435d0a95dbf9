import { randomUUID } from "node:crypto";
import { UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import { loadUsageDefinition, natsNames } from "@gateway/shared";
import { connect } from "nats";
import { round2 } from "./stats.js";

export interface IngestResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

/**
 * Publishes `count` usage events straight onto the stack's stream and times how long the
 * ledger takes to commit and ack them all (publishing overlaps with consuming, as in use).
 */
export async function measureLedgerIngest(
  natsUrl: string,
  namespace: string,
  account: { accountId: string; keyId: string },
  count: number,
): Promise<IngestResult> {
  const nats = await connect({ servers: natsUrl });
  try {
    const jetstream = nats.jetstream();
    const manager = await nats.jetstreamManager();
    const { stream, consumer } = loadUsageDefinition(namespace);
    const subject = natsNames(namespace).usageSubject("bench");
    const started = performance.now();
    const publishes: Promise<unknown>[] = [];
    for (let index = 0; index < count; index++) {
      const event = UsageEvent.fromPartial({
        requestId: `ingest-${randomUUID()}`,
        accountId: account.accountId,
        keyId: account.keyId,
        model: "gpt-4o-mini",
        vendor: "bench",
        channel: "bench",
        promptTokens: 10,
        completionTokens: 20,
        totalTokens: 30,
        outcome: UsageOutcome.USAGE_OUTCOME_OK,
        inputPriceMicros: 1_080_000,
        outputPriceMicros: 4_320_000,
      });
      publishes.push(jetstream.publish(subject, UsageEvent.encode(event).finish(), { msgID: event.requestId }));
      // Bounded in-flight publishes, so the publisher measures the ledger rather than its own queue.
      if (publishes.length >= 500) await Promise.all(publishes.splice(0));
    }
    await Promise.all(publishes);
    for (;;) {
      const info = await manager.consumers.info(stream.name, consumer.durable_name);
      if (info.num_pending === 0 && info.num_ack_pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    return { events: count, seconds: round2(seconds), eventsPerSecond: Math.round(count / seconds) };
  } finally {
    await nats.close();
  }
}
