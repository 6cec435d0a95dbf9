import type { Redis, SqlPool } from "@gateway/platform";
import { type Logger, markFailed, tracer, type UsageDefinition, withMessageContext } from "@gateway/platform";
import { UsageEvent } from "@gateway/proto/events/v1/events";
import type { JsMsg, NatsConnection } from "nats";
import { type BatchedConsumer, startBatchedConsumer } from "../jetstream/batched-consumer.js";
import { recordUsage } from "./record-usage.js";
import { type SettledRequest, settleReservations } from "./settle-reservations.js";
import type { UsageMetrics } from "./usage-metrics.js";
import type { UsageEntry } from "./usage-rows.js";
import { validateUsageEvent } from "./validate-usage-event.js";

// Measured best on the ingest bench: a batch's round trips and commit are spread over more
// events than at 500, while larger batches gained nothing.
const BATCH_SIZE = 1_000;
// Long enough to gather many events per transaction at modest rates, where per-batch cost dominates.
const BATCH_WAIT_MS = 100;
// Batches recorded at once: the next batch is decoded, priced and sent while the previous
// one commits. Each batch acks its own messages after its own commit.
export const BATCHES_IN_FLIGHT = 2;
// How many messages the client keeps requested from the server ahead of processing: enough
// to fill every batch in flight and the next.
const PULL_AHEAD = BATCH_SIZE * (BATCHES_IN_FLIGHT + 1);

interface ReceivedUsage extends UsageEntry {
  message: JsMsg;
}

/**
 * Consumes usage events from the durable JetStream consumer and records them in batches.
 * A batch's messages are acked only after its transaction commits; if it fails they are
 * nak'ed with a growing delay and come back, and the unique request_id makes the retry safe
 * (also when two batches in flight, or two replicas, hold copies of one event).
 */
export async function startUsageConsumer(dependencies: {
  nats: NatsConnection;
  redis: Redis;
  namespace: string;
  definition: UsageDefinition;
  pool: SqlPool;
  logger: Logger;
  metrics: UsageMetrics;
}): Promise<BatchedConsumer> {
  const { nats, redis, namespace, definition, pool, logger, metrics } = dependencies;
  return startBatchedConsumer(
    {
      nats,
      definition,
      logger,
      batching: { maxSize: BATCH_SIZE, maxWaitMs: BATCH_WAIT_MS, concurrency: BATCHES_IN_FLIGHT },
      pullAhead: PULL_AHEAD,
      messages: { consuming: "consuming usage", malformed: "dropping malformed usage event" },
    },
    {
      decode: (message): ReceivedUsage | { problem: string } => {
        const decoded = decodeUsage(message);
        return "problem" in decoded ? decoded : { message, event: decoded.event, traceId: undefined };
      },
      commit: (batch) => withEventSpans(batch, () => recordUsage(pool, batch)),
      async committed(batch, recorded, seconds) {
        metrics.batchCommitted(
          batch.map(({ message }) => message),
          recorded.rows,
          seconds,
        );
        const settled = settledRequests(batch);
        await settleReservations(redis, namespace, settled, recorded, logger);
        logger.debug(
          { received: batch.length, inserted: recorded.inserted, debitedMicros: String(recorded.debitedMicros) },
          "usage batch",
        );
      },
      failed(batch, error, seconds) {
        metrics.batchFailed(seconds);
        logger.error({ err: error, events: batch.length }, "recording usage failed; the events will be redelivered");
      },
    },
  );
}

/**
 * The batch's requests whose reservations are freed now. One admitted from a lease gives its
 * worst case back to that lease, a copy of an event recorded before (redelivered, or held by
 * another replica) too: the replica that charged it may have been killed before it gave back,
 * and Redis gives each request back to its lease once (lease-scripts.ts), as it frees a
 * reservation once. A second copy of the same admission in this batch is left out here.
 */
function settledRequests(batch: readonly ReceivedUsage[]): SettledRequest[] {
  const givenBack = new Set<string>();
  return batch.map(({ event }) => {
    const settled: SettledRequest = { accountId: event.accountId, keyId: event.keyId, requestId: event.requestId };
    const admission = `${event.requestId} ${event.leaseId}`;
    if (event.leaseId && !givenBack.has(admission)) {
      givenBack.add(admission);
      settled.lease = { id: event.leaseId, micros: BigInt(event.leasedMicros ?? 0) };
    }
    return settled;
  });
}

function decodeUsage(message: JsMsg): { event: UsageEvent } | { problem: string } {
  let event: UsageEvent;
  try {
    event = UsageEvent.decode(message.data);
  } catch (error) {
    return { problem: `not a UsageEvent: ${error instanceof Error ? error.message : String(error)}` };
  }
  const problem = validateUsageEvent(event);
  return problem ? { problem } : { event };
}

/**
 * Runs the batch's work with one "ledger.record_usage" span per event, each a child of the
 * trace its publisher started (so one request is one trace across services) and open until
 * the shared transaction settles. Fills in each entry's trace id before the work starts.
 * The spans are never made active: nothing runs inside one event's span alone.
 */
async function withEventSpans<T>(batch: ReceivedUsage[], work: () => Promise<T>): Promise<T> {
  const spans = batch.map((entry) => {
    const span = withMessageContext(entry.message.headers, () =>
      tracer.startSpan("ledger.record_usage", {
        attributes: {
          "gateway.request_id": entry.event.requestId,
          "gateway.account_id": entry.event.accountId,
          "gateway.model": entry.event.model,
          "gateway.vendor": entry.event.vendor,
          "ledger.batch_size": batch.length,
        },
      }),
    );
    entry.traceId = span.spanContext().traceId;
    return span;
  });
  try {
    return await work();
  } catch (error) {
    for (const span of spans) markFailed(span, error);
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
}
