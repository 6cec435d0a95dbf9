import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { loadUsageDefinition, natsNames } from "@gateway/platform";
import { UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import { connect, type JetStreamClient, type JetStreamManager } from "nats";
import { round2 } from "./stats.js";

export interface IngestRun {
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

export interface IngestResult extends IngestRun {
  /** How long publishing alone took: when it is close to `seconds`, the publisher, not ledger, set the pace. */
  publishSeconds: number;
  /** The same number of events already waiting in the stream when ledger starts on them: its own capacity. */
  backlog: IngestRun;
}

interface IngestTarget {
  natsUrl: string;
  namespace: string;
  account: { accountId: string; keyId: string };
  /** The ledger process, paused while the backlog is published. */
  ledgerPid: number;
}

// Publishes go in batches of this many (at most two batches unacked), so the publisher measures the ledger rather than its own queue.
const PUBLISH_WINDOW = 500;
// Events committed before timing starts, so ledger's batching code is compiled and its pools are open.
const WARM_UP_EVENTS = 2_000;

/** The events, encoded before any timing starts: encoding is the publisher's work, not ledger's. */
function usageEvents(target: IngestTarget, count: number): { id: string; payload: Uint8Array }[] {
  return Array.from({ length: count }, () => {
    const event = UsageEvent.fromPartial({
      requestId: `ingest-${randomUUID()}`,
      accountId: target.account.accountId,
      keyId: target.account.keyId,
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
    return { id: event.requestId, payload: UsageEvent.encode(event).finish() };
  });
}

async function publishEvents(
  jetstream: JetStreamClient,
  namespace: string,
  events: { id: string; payload: Uint8Array }[],
): Promise<void> {
  const subject = natsNames(namespace).usageSubject("bench");
  // Two batches in flight: the next is sent while the previous one's acks come back.
  let previous: Promise<unknown> = Promise.resolve();
  for (let start = 0; start < events.length; start += PUBLISH_WINDOW) {
    const batch = events
      .slice(start, start + PUBLISH_WINDOW)
      .map(({ id, payload }) => jetstream.publish(subject, payload, { msgID: id }));
    await previous;
    previous = Promise.all(batch);
  }
  await previous;
}

async function allAcked(manager: JetStreamManager, namespace: string): Promise<void> {
  const { stream, consumer } = loadUsageDefinition(namespace);
  for (;;) {
    const info = await manager.consumers.info(stream.name, consumer.durable_name);
    if (info.num_pending === 0 && info.num_ack_pending === 0) return;
    await sleep(20);
  }
}

const run = (events: number, started: number): IngestRun => {
  const seconds = (performance.now() - started) / 1000;
  return { events, seconds: round2(seconds), eventsPerSecond: Math.round(events / seconds) };
};

/**
 * After a warm-up, publishes `count` usage events straight onto the stack's stream and times how long the
 * ledger takes to commit and ack them all, twice: publishing while ledger consumes (as in
 * use, where a fast ledger only keeps pace with the publisher), then with ledger paused
 * (SIGSTOP) until all are published, timed from when it resumes (its own drain rate).
 */
export async function measureLedgerIngest(target: IngestTarget, count: number): Promise<IngestResult> {
  const nats = await connect({ servers: target.natsUrl, noAsyncTraces: true });
  try {
    const jetstream = nats.jetstream();
    const manager = await nats.jetstreamManager();
    await publishEvents(jetstream, target.namespace, usageEvents(target, WARM_UP_EVENTS));
    await allAcked(manager, target.namespace);
    const [overlappedEvents, backlogEvents] = [usageEvents(target, count), usageEvents(target, count)];
    const started = performance.now();
    await publishEvents(jetstream, target.namespace, overlappedEvents);
    const publishSeconds = round2((performance.now() - started) / 1000);
    await allAcked(manager, target.namespace);
    const overlapped = run(count, started);

    process.kill(target.ledgerPid, "SIGSTOP");
    try {
      await publishEvents(jetstream, target.namespace, backlogEvents);
    } finally {
      process.kill(target.ledgerPid, "SIGCONT");
    }
    const resumed = performance.now();
    await allAcked(manager, target.namespace);
    return { ...overlapped, publishSeconds, backlog: run(count, resumed) };
  } finally {
    await nats.close();
  }
}
