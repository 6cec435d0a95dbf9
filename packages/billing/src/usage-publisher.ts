import { fileURLToPath } from "node:url";
import type { Logger } from "@gateway/platform";
import { natsNames, startPiece, tracedHeaders } from "@gateway/platform";
import { LogCapture } from "@gateway/proto/common/v1/common";
import {
  type RequestLog,
  type RequestLogEntry,
  type UsageEvent,
  UsageEvent as UsageEventCodec,
} from "@gateway/proto/events/v1/events";
import { type MsgHdrs, type NatsConnection, headers as natsHeaders } from "nats";
import { z } from "zod";
import { DurableLane } from "./durable-lane.js";
import { JetStreamBatchPublisher, type JetStreamMessage } from "./jetstream-batch.js";
import { requestLogMessages } from "./request-log-batches.js";
import type { SpooledMessage } from "./usage-spool.js";

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
  /**
   * Where the request log entries kept in full go (router): in batches of their own, with a
   * journal and a spool of their own in this directory, so bodies never travel in, nor crowd
   * the spool of, the usage events. Without it, an entry rides in its event.
   */
  requestLogs?: { directory: string; maxBytes: number };
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
  private readonly usage: DurableLane;
  private readonly requestLogs: DurableLane | undefined;
  private readonly retry: NodeJS.Timeout;
  private readonly jetStream: JetStreamBatchPublisher;

  constructor(
    nats: NatsConnection,
    namespace: string,
    private readonly logger: Logger,
    spool: SpoolSettings,
  ) {
    this.names = natsNames(namespace);
    this.jetStream = new JetStreamBatchPublisher(nats);
    this.usage = new DurableLane(spool.directory, spool.maxBytes, spool.journal !== undefined, logger, {
      kind: "usage",
      item: "usage event",
      field: "usage_event",
    });
    const undelivered = this.usage.recover();
    if (undelivered.length > 0) {
      this.logger.warn({ undelivered: undelivered.length }, "usage journal released undelivered answers");
      spool.journal?.undelivered(
        undelivered.map((message) => UsageEventCodec.decode(Buffer.from(message.data, "base64"))),
      );
    }
    if (spool.requestLogs) {
      // Always journaled: the entry exists nowhere else once its batch is built.
      this.requestLogs = new DurableLane(spool.requestLogs.directory, spool.requestLogs.maxBytes, true, logger, {
        kind: "request log",
        item: "request log batch",
        field: "request_log_batch",
      });
      this.requestLogs.recover();
    }
    this.retry = setInterval(() => void this.drainSpools(), spool.retryIntervalMs);
    this.retry.unref();
    void this.drainSpools();
  }

  /** Bytes of usage events waiting on disk for NATS (0 while NATS takes everything). */
  spooledBytes(): number {
    return this.usage.spooledBytes();
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
    this.usage.close();
    this.requestLogs?.close();
  }

  // Events queued for the next batch: what each sends (built when it is sent), and what learns whether it is held.
  private pending: Array<{ message: () => Sent; held: (held: boolean) => void }> = [];
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
   * batches over 100 ms anyway. `requestLog` builds the request's log entry when the event is
   * sent, keeping that work off the answer's path; the journal holds the event without it. An
   * entry kept in full leaves in a request log batch of its own (see `requestLogs`), one kept
   * as metadata in the event. With `delivery`, the event waits for its answer to leave
   * before it is sent, and the journal records when it did: a router killed before that
   * bills nothing, neither through JetStream nor through its successor.
   */
  publish(event: UsageEvent, requestLog?: () => RequestLog | undefined, delivery?: AnswerDelivery): void {
    void this.publishDurably(event, requestLog, delivery);
  }

  /**
   * `publish`, for callers that record the publish: resolves true once JetStream or the spool
   * holds the event, false when only the log does. Never rejects.
   */
  publishDurably(
    event: UsageEvent,
    requestLog?: () => RequestLog | undefined,
    delivery?: AnswerDelivery,
  ): Promise<boolean> {
    // The trace context is the caller's, so it is read now.
    const headers = tracedHeaders();
    const billed = this.messageOf(event, headers);
    const journaled = this.usage.journaled(spooledMessage(billed), delivery !== undefined);
    const published = new Promise<boolean>((resolve) => {
      const queue = () => {
        if (this.pending.length === 0) this.linger = setTimeout(() => this.flush(), PUBLISH_LINGER_MS);
        this.pending.push({
          message: () => this.sent(event, billed, headers, requestLog?.()),
          held: resolve,
        });
      };
      if (!delivery) return queue();
      this.awaitingDelivery.add(queue);
      delivery.onDelivered(() => {
        if (!this.awaitingDelivery.delete(queue)) return;
        this.usage.markDelivered(journaled.delivered, billed.id);
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

  /** The event's message as sent, and its log entry when that travels apart. */
  private sent(event: UsageEvent, billed: JetStreamMessage, headers: MsgHdrs, log: RequestLog | undefined): Sent {
    if (!log) return { message: billed };
    if (this.requestLogs && log.capture === LogCapture.LOG_CAPTURE_FULL) {
      const { requestId, accountId, startedAtMs } = event;
      return { message: billed, entry: { requestId, accountId, startedAtMs, log } };
    }
    return { message: this.messageOf({ ...event, log }, headers) };
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

  private async drainSpools(): Promise<void> {
    const send = (message: SpooledMessage) => this.send(message);
    await Promise.all([this.usage.drain(send), this.requestLogs?.drain(send)]);
  }

  /**
   * Publishes the queued events as one batch, and the log entries they carry apart as
   * batches of their own (journaled first), in the same socket write; each message is settled
   * by its own ack, or spooled in its lane.
   */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const logging = startPiece("request-log");
    const sent = batch.map(({ message }) => message());
    const logBatches = this.logBatches(sent.flatMap(({ entry }) => (entry ? [entry] : [])));
    logging?.();
    const publishing = startPiece("usage-publish");
    const acked = this.jetStream.publishAll([
      ...sent.map(({ message }) => message),
      ...logBatches.map(({ message }) => message),
    ]);
    publishing?.();
    sent.forEach(({ message }, index) => {
      const { held } = batch[index]!;
      acked[index]!.then(
        () => held(true),
        (error: unknown) => held(this.usage.keep(spooledMessage(message), error)),
      );
    });
    logBatches.forEach(({ keep, settle }, index) => {
      const stored = acked[sent.length + index]!.then(() => true, keep);
      this.inFlight.add(stored);
      void stored.then(() => {
        this.inFlight.delete(stored);
        settle();
      });
    });
  }

  /** The entries as request log batches, each journaled before it is sent. */
  private logBatches(entries: RequestLogEntry[]) {
    const lane = this.requestLogs;
    if (!lane || entries.length === 0) return [];
    return requestLogMessages(this.names.requestLogSubject, entries).map((message) => {
      const spooled = spooledMessage(message);
      const { settle } = lane.journaled(spooled, false);
      return { message, settle, keep: (error: unknown) => lane.keep(spooled, error) };
    });
  }
}

/** What one queued event sends: its message, and its log entry kept in full when that travels apart. */
interface Sent {
  message: JetStreamMessage;
  entry?: RequestLogEntry;
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
