import type { Logger } from "@gateway/platform";
import { type RecoveredUsage, UsageJournal } from "./usage-journal.js";
import { type DrainOutcome, type SpooledMessage, UsageSpool } from "./usage-spool.js";

/** How one kind of message is named in the log lines of its lane. */
export interface LaneNames {
  // "usage": its journal and spool ("usage spool drained").
  kind: string;
  // "usage event": one message ("usage event spooled until NATS takes it").
  item: string;
  // "usage_event": the log field a message NATS never took is written whole under.
  field: string;
}

/**
 * What keeps one kind of message from being lost on its way to JetStream: a journal (when
 * asked for) that holds each message from before its caller moves on until JetStream or the
 * spool holds it, and a bounded, fsynced spool for what NATS did not take. Its own directory,
 * so one kind filling its spool never crowds out another's.
 */
export class DurableLane {
  private readonly spool: UsageSpool;
  private readonly journal: UsageJournal | undefined;
  private drainRunning = false;

  constructor(
    directory: string,
    maxBytes: number,
    journaled: boolean,
    private readonly logger: Logger,
    private readonly names: LaneNames,
  ) {
    this.spool = new UsageSpool(directory, maxBytes);
    this.journal = journaled ? new UsageJournal(directory) : undefined;
  }

  /** Moves what a killed predecessor journaled into the spool; hands back those whose answers never left it. */
  recover(): SpooledMessage[] {
    let undelivered: SpooledMessage[] = [];
    // Into the spool, which fsyncs them and publishes them with its next drain.
    this.journal?.recover((recovered) => {
      this.spoolRecovered(recovered);
      undelivered = recovered.undelivered;
    });
    return undelivered;
  }

  /** Bytes waiting on disk for NATS (0 while NATS takes everything). */
  spooledBytes(): number {
    return this.spool.size();
  }

  /** Appends the message to the journal, if there is one: `settle` settles it, `delivered` marks its answer gone. */
  journaled(message: SpooledMessage, awaitingDelivery: boolean): { settle: () => void; delivered: () => void } {
    const nothing = () => undefined;
    if (!this.journal) return { settle: nothing, delivered: nothing };
    try {
      if (awaitingDelivery) return this.journal.appendAwaitingDelivery(message);
      return { settle: this.journal.append(message), delivered: nothing };
    } catch (error) {
      // A full or failing disk must not fail the answer; the message still goes out, only unjournaled.
      this.logger.error(
        { err: error, request_id: message.msgID },
        `${this.names.kind} journal write failed; ${this.names.item} not journaled`,
      );
      return { settle: nothing, delivered: nothing };
    }
  }

  markDelivered(delivered: () => void, requestId: string): void {
    try {
      delivered();
    } catch (error) {
      // Unmarked, a successor would release an answer that left: the operator bears its charge.
      this.logger.error({ err: error, request_id: requestId }, `${this.names.kind} journal delivery mark failed`);
    }
  }

  /** True when the spool took the message. */
  keep(message: SpooledMessage, error: unknown): boolean {
    if (this.spool.add(message)) {
      this.logger.warn({ err: error, request_id: message.msgID }, `${this.names.item} spooled until NATS takes it`);
      return true;
    }
    this.logUnspooled(message, error);
    return false;
  }

  /** Offers the spool to `send` (one drain at a time). */
  async drain(send: (message: SpooledMessage) => Promise<void>): Promise<void> {
    if (this.drainRunning || this.spool.size() === 0) return;
    this.drainRunning = true;
    try {
      const { sent, kept, torn }: DrainOutcome = await this.spool.drain(send);
      if (sent > 0 || kept > 0) this.logger.info({ sent, kept }, `${this.names.kind} spool drained`);
      // A line cut by a crash mid-write cannot be published; its text goes to the log for an operator.
      if (torn.length > 0) {
        this.logger.error({ torn: torn.length, lines: torn }, `${this.names.kind} spool lines skipped: torn`);
      }
    } catch (error) {
      this.logger.error({ err: error }, `${this.names.kind} spool could not be drained; it is tried again`);
    } finally {
      this.drainRunning = false;
    }
  }

  close(): void {
    this.journal?.close();
  }

  /** What the journal of a killed predecessor held; it goes to the spool (or, if full, to the log). */
  private spoolRecovered({ messages, torn }: RecoveredUsage): void {
    const refused = this.spool.addAll(messages);
    if (messages.length > 0) {
      this.logger.warn({ recovered: messages.length }, `${this.names.kind} journal recovered into the spool`);
    }
    for (const message of refused) this.logUnspooled(message);
    if (torn.length > 0) {
      this.logger.error({ torn: torn.length, lines: torn }, `${this.names.kind} journal lines skipped: torn`);
    }
  }

  // Full spool: the message goes to the log whole, so an operator can replay it.
  private logUnspooled(message: SpooledMessage, error?: unknown): void {
    this.logger.fatal(
      { err: error, [this.names.field]: message },
      `${this.names.kind} spool is full; ${this.names.item} only in this log`,
    );
  }
}
