import { fileURLToPath } from "node:url";
import type { Logger } from "@gateway/platform";
import { natsNames, startPiece, tracedHeaders } from "@gateway/platform";
import { type UsageEvent, UsageEvent as UsageEventCodec } from "@gateway/proto/events/v1/events";
import { type MsgHdrs, type NatsConnection, headers as natsHeaders } from "nats";
import { z } from "zod";
import { JetStreamBatchPublisher, type JetStreamMessage } from "./jetstream-batch.js";
import { type RecoveredUsage, UsageJournal } from "./usage-journal.js";
import { type SpooledMessage, UsageSpool } from "./usage-spool.js";

// How long an event waits to be sent with the ones that follow it.
const PUBLISH_LINGER_MS = 10;

/** Settings of the spool every usage publisher keeps, read from the environment with a service's own size bound. */
export const usageSpoolConfig = (defaultMaxBytes: number) => ({
  // A persistent volume in production; empty means .gateway/spool/<namespace>/<service> in the checkout.
  USAGE_SPOOL_DIR: z.string().default(""),
  USAGE_SPOOL_MAX_BYTES: z.coerce.number().int().positive().default(defaultMaxBytes),
  USAGE_SPOOL_RETRY_MS: z.coerce.number().int().positive().default(2_000),
});

export function usageSpoolSettings(
  config: {
    GATEWAY_NAMESPACE: string;
    USAGE_SPOOL_DIR: string;
    USAGE_SPOOL_MAX_BYTES: number;
    USAGE_SPOOL_RETRY_MS: number;
  },
  service: string,
): SpoolSettings {
  const checkoutDirectory = new URL(`../../../.gateway/spool/${config.GATEWAY_NAMESPACE}/${service}`, import.meta.url);
  return {
    directory: config.USAGE_SPOOL_DIR || fileURLToPath(checkoutDirectory),
    maxBytes: config.USAGE_SPOOL_MAX_BYTES,
    retryIntervalMs: config.USAGE_SPOOL_RETRY_MS,
  };
}

export interface SpoolSettings {
  directory: string;
  maxBytes: number;
  // How often the spool is offered to NATS again while it holds events.
  retryIntervalMs: number;
  /**
   * Journal each event in the directory before `publish` returns (see UsageJournal), for a
   * service with no other record of what it must bill. `undelivered` gets the events a killed
   * predecessor journaled for answers that never left it: they are not billed, and their
   * reservations are the caller's to free.
   */
  journal?: { undelivered(events: UsageEvent[]): void };
}

/** Reports when a request's answer has been handed to its client (a unary gRPC call's context). */
export interface AnswerDelivery {
  onDelivered(hook: () => void): void;
}

/**
 * Publishes one usage event per finished request (router calls, finished video tasks). The JetStream message id is the
 * request id, so a repeated publish is dropped by the server and ledger stays exact.
 * Publishing never fails the client's answer, and no event is lost: one NATS does not take
 * is spooled to disk and published again when NATS is back, and with a journal, one that a
 * killed process had not handed over yet is published by its successor.
 */
export class UsagePublisher {
  private readonly names;
  private readonly spool: UsageSpool;
  private readonly journal: UsageJournal | undefined;
  private readonly retry: NodeJS.Timeout;
  private readonly jetStream: JetStreamBatchPublisher;
  private drainRunning = false;

  constructor(
    nats: NatsConnection,
    namespace: string,
    private readonly logger: Logger,
    spool: SpoolSettings,
  ) {
    this.names = natsNames(namespace);
    this.jetStream = new JetStreamBatchPublisher(nats);
    this.spool = new UsageSpool(spool.directory, spool.maxBytes);
    if (spool.journal) {
      const { undelivered } = spool.journal;
      this.journal = new UsageJournal(spool.directory);
      // Into the spool, which fsyncs them and publishes them with its next drain (just below).
      this.journal.recover((recovered) => {
        this.spoolRecovered(recovered);
        if (recovered.undelivered.length === 0) return;
        this.logger.warn({ undelivered: recovered.undelivered.length }, "usage journal released undelivered answers");
        undelivered(
          recovered.undelivered.map((message) => UsageEventCodec.decode(Buffer.from(message.data, "base64"))),
        );
      });
    }
    this.retry = setInterval(() => void this.drainSpool(), spool.retryIntervalMs);
    this.retry.unref();
    void this.drainSpool();
  }

  /** Bytes of usage events waiting on disk for NATS (0 while NATS takes everything). */
  spooledBytes(): number {
    return this.spool.size();
  }

  /** Sends what is still lingering and waits until each event is in JetStream or the spool. */
  async close(): Promise<void> {
    clearInterval(this.retry);
    // A call still unfinished at shutdown was cut by the drain's end: its event goes out as before.
    for (const queue of this.awaitingDelivery) queue();
    this.awaitingDelivery.clear();
    clearTimeout(this.linger);
    this.flush();
    await Promise.all(this.inFlight);
    this.journal?.close();
  }

  // Events queued for the next batch: what each sends (built when it is sent), and what learns whether it is held.
  private pending: Array<{ message: () => JetStreamMessage; held: (held: boolean) => void }> = [];
  private linger: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<boolean>>();
  // Events held until their answers leave (see `publish`), each as what queues it for sending.
  private readonly awaitingDelivery = new Set<() => void>();

  /**
   * Journals the event (with a journal) before returning, so a caller that publishes before
   * it answers never answers a request whose event a kill could lose. It is sent a few
   * milliseconds later: the client's answer leaves first (measured: publishing on the next
   * loop turn delayed each unary answer by ~0.7 ms on its way back to edge), and events of
   * requests finishing together leave in one socket write. Billing is unaffected: ledger
   * batches over 100 ms anyway. `complete` adds, when the event is sent, what only the sent
   * copy carries (a request log entry), keeping that work off the answer's path; the journal
   * holds the event without it. With `delivery`, the event waits for its answer to leave
   * before it is sent, and the journal records when it did: a router killed before that
   * bills nothing, neither through JetStream nor through its successor.
   */
  publish(event: UsageEvent, complete?: (event: UsageEvent) => UsageEvent, delivery?: AnswerDelivery): void {
    void this.publishDurably(event, complete, delivery);
  }

  /**
   * `publish`, for callers that record the publish: resolves true once JetStream or the spool
   * holds the event, false when only the log does. Never rejects.
   */
  publishDurably(
    event: UsageEvent,
    complete?: (event: UsageEvent) => UsageEvent,
    delivery?: AnswerDelivery,
  ): Promise<boolean> {
    // The trace context is the caller's, so it is read now.
    const headers = tracedHeaders();
    const billed = this.messageOf(event, headers);
    const journaled = this.journaled(billed, delivery !== undefined);
    const published = new Promise<boolean>((resolve) => {
      const queue = () => {
        if (this.pending.length === 0) this.linger = setTimeout(() => this.flush(), PUBLISH_LINGER_MS);
        this.pending.push({
          message: () => {
            const sent = complete?.(event) ?? event;
            return sent === event ? billed : this.messageOf(sent, headers);
          },
          held: resolve,
        });
      };
      if (!delivery) return queue();
      this.awaitingDelivery.add(queue);
      delivery.onDelivered(() => {
        if (!this.awaitingDelivery.delete(queue)) return;
        this.markDelivered(journaled.delivered, billed.id);
        queue();
      });
    });
    this.inFlight.add(published);
    void published.then(() => {
      this.inFlight.delete(published);
      journaled.settle();
    });
    return published;
  }

  /** Appends the message to the journal, if there is one: `settle` settles it, `delivered` marks its answer gone. */
  private journaled(
    message: JetStreamMessage,
    awaitingDelivery: boolean,
  ): { settle: () => void; delivered: () => void } {
    const nothing = () => undefined;
    if (!this.journal) return { settle: nothing, delivered: nothing };
    try {
      const line = spooledMessage(message);
      if (awaitingDelivery) return this.journal.appendAwaitingDelivery(line);
      return { settle: this.journal.append(line), delivered: nothing };
    } catch (error) {
      // A full or failing disk must not fail the answer; the event still goes out, only unjournaled.
      this.logger.error({ err: error, request_id: message.id }, "usage journal write failed; event not journaled");
      return { settle: nothing, delivered: nothing };
    }
  }

  private markDelivered(delivered: () => void, requestId: string): void {
    try {
      delivered();
    } catch (error) {
      // Unmarked, a successor would release an answer that left: the operator bears its charge.
      this.logger.error({ err: error, request_id: requestId }, "usage journal delivery mark failed");
    }
  }

  /** What the journal of a killed predecessor held; it goes to the spool (or, if full, to the log). */
  private spoolRecovered({ messages, torn }: RecoveredUsage): void {
    const refused = this.spool.addAll(messages);
    if (messages.length > 0) this.logger.warn({ recovered: messages.length }, "usage journal recovered into the spool");
    for (const message of refused) this.logUnspooled(message);
    if (torn.length > 0) this.logger.error({ torn: torn.length, lines: torn }, "usage journal lines skipped: torn");
  }

  // Kept as bytes: only a journal line or a spooled event is written as text (base64), and most events are neither.
  private messageOf(event: UsageEvent, headers: MsgHdrs): JetStreamMessage {
    return {
      subject: this.names.usageSubject(event.vendor),
      id: event.requestId,
      data: UsageEventCodec.encode(event).finish(),
      headers,
    };
  }

  private async send(message: SpooledMessage): Promise<void> {
    await this.jetStream.publishAll([jetStreamMessage(message)])[0];
  }

  /** True when the spool took the message. */
  private keep(message: SpooledMessage, error: unknown): boolean {
    if (this.spool.add(message)) {
      this.logger.warn({ err: error, request_id: message.msgID }, "usage event spooled until NATS takes it");
      return true;
    }
    this.logUnspooled(message, error);
    return false;
  }

  // Full spool: the event goes to the log whole, so an operator can replay it.
  private logUnspooled(message: SpooledMessage, error?: unknown): void {
    this.logger.fatal({ err: error, usage_event: message }, "usage spool is full; usage event only in this log");
  }

  private async drainSpool(): Promise<void> {
    if (this.drainRunning || this.spool.size() === 0) return;
    this.drainRunning = true;
    try {
      const { sent, kept, torn } = await this.spool.drain((message) => this.send(message));
      if (sent > 0 || kept > 0) this.logger.info({ sent, kept }, "usage spool drained");
      // A line cut by a crash mid-write cannot be published; its text goes to the log for an operator.
      if (torn.length > 0) this.logger.error({ torn: torn.length, lines: torn }, "usage spool lines skipped: torn");
    } catch (error) {
      this.logger.error({ err: error }, "usage spool could not be drained; it is tried again");
    } finally {
      this.drainRunning = false;
    }
  }

  /** Publishes the queued events as one batch; each is settled by its own ack, or spooled. */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const logging = startPiece("request-log");
    const messages = batch.map(({ message }) => message());
    logging?.();
    const publishing = startPiece("usage-publish");
    const acked = this.jetStream.publishAll(messages);
    publishing?.();
    acked.forEach((ack, index) => {
      const message = messages[index]!;
      const { held } = batch[index]!;
      ack.then(
        () => held(true),
        (error: unknown) => held(this.keep(spooledMessage(message), error)),
      );
    });
  }
}

const base64 = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");

function spooledMessage(message: JetStreamMessage): SpooledMessage {
  const headers: Record<string, string> = {};
  for (const key of message.headers.keys()) headers[key] = message.headers.get(key);
  return { subject: message.subject, msgID: message.id, data: base64(message.data), headers };
}

function jetStreamMessage(message: SpooledMessage): JetStreamMessage {
  const headers: MsgHdrs = natsHeaders();
  for (const [key, value] of Object.entries(message.headers)) headers.set(key, value);
  return { subject: message.subject, id: message.msgID, data: Buffer.from(message.data, "base64"), headers };
}
