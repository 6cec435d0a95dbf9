import { ensureUsageConsumer, ensureUsageStream, type Logger, type StreamDefinition } from "@gateway/platform";
import type { JsMsg, NatsConnection } from "nats";
import { MicroBatcher, type MicroBatcherOptions } from "./micro-batcher.js";

// How long one pull request lasts. A pull waiting at the consumer's leader dies with it (a NATS
// node lost): the client pulls again after two missed heartbeats (half of this each), and after
// a reconnect it retries the consumer's info every this long until a new leader answers.
// nats.js's default, 30 s, stopped billing for 30-45 s when a node was lost; 5 s costs an
// idle ledger one pull request per 5 s.
const PULL_EXPIRES_MS = 5_000;
const RETRY_BASE_DELAY_MS = 1_000;
const RETRY_MAX_DELAY_MS = 60_000;

/** How long a message of a failed batch waits before it comes back: longer each time, up to a minute. */
const redeliveryDelayMs = (message: JsMsg) =>
  Math.min(RETRY_BASE_DELAY_MS * 2 ** (message.info.redeliveryCount - 1), RETRY_MAX_DELAY_MS);

export interface BatchedConsumer {
  /** Stops pulling, then finishes (commits and acks) everything already received. */
  stop(): Promise<void>;
}

/** What one consumer does with its messages; the scaffold around it (pull, batch, ack, nak, stop) is shared. */
export interface BatchHandling<Item extends { message: JsMsg }, Committed> {
  /** The item a message holds, or why it holds none (the message is then terminated). */
  decode(message: JsMsg): Item | { problem: string };
  /** Writes a batch; its messages are acked once this resolves, and nak'ed if it throws. */
  commit(batch: Item[]): Promise<Committed>;
  /** Runs after the acks; if it throws, the batch counts as failed like a failed commit. */
  committed(batch: Item[], result: Committed, seconds: number): void | Promise<void>;
  /** Reports a failed batch, just before its messages are nak'ed. */
  failed(batch: Item[], error: unknown, seconds: number): void;
}

/**
 * Ensures the stream and its durable consumer, then pulls messages and processes them in
 * micro-batches. A batch's messages are acked only after its commit; if it fails they are
 * nak'ed with a growing delay and come back, so `commit` must be safe to repeat.
 */
export async function startBatchedConsumer<Item extends { message: JsMsg }, Committed>(
  dependencies: {
    nats: NatsConnection;
    definition: StreamDefinition;
    logger: Logger;
    batching: MicroBatcherOptions;
    /** How many messages the client keeps requested from the server ahead of processing. */
    pullAhead: number;
    /** Log lines naming what this consumer consumes. */
    messages: { consuming: string; malformed: string };
  },
  handling: BatchHandling<Item, Committed>,
): Promise<BatchedConsumer> {
  const { nats, definition, logger, batching, pullAhead, messages: says } = dependencies;
  const manager = await nats.jetstreamManager();
  await ensureUsageStream(manager, definition);
  await ensureUsageConsumer(manager, definition);
  const consumer = await nats.jetstream().consumers.get(definition.stream.name, definition.consumer.durable_name);

  const processBatch = async (batch: Item[]) => {
    const startedAt = performance.now();
    try {
      const result = await handling.commit(batch);
      for (const { message } of batch) message.ack();
      await handling.committed(batch, result, (performance.now() - startedAt) / 1000);
    } catch (error) {
      handling.failed(batch, error, (performance.now() - startedAt) / 1000);
      for (const { message } of batch) message.nak(redeliveryDelayMs(message));
    }
  };
  const batcher = new MicroBatcher(processBatch, batching);

  const receive = (message: JsMsg) => {
    const decoded = handling.decode(message);
    if ("problem" in decoded) {
      // Redelivering a malformed message cannot fix it; a stream that keeps what was acked
      // (the usage events') keeps it for inspection.
      logger.error({ problem: decoded.problem, sequence: message.seq }, says.malformed);
      message.term();
      return;
    }
    batcher.add(decoded);
  };
  const pulled = await consumer.consume({ max_messages: pullAhead, expires: PULL_EXPIRES_MS, callback: receive });
  logger.info({ stream: definition.stream.name, consumer: definition.consumer.durable_name }, says.consuming);

  return {
    async stop() {
      await pulled.close();
      await batcher.drain();
    },
  };
}
