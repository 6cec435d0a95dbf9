import { appendFileSync, closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readSpooledMessages, type SpooledMessage, spooledLine } from "./usage-spool.js";

// A file this large is closed and a new one started, so one that never empties (steady load
// keeps some events in flight) is deleted as soon as its last event settles.
const SEGMENT_BYTES = 4 * 1024 * 1024;

const segmentName = /^journal-[\w-]+\.jsonl$/;

interface Segment {
  path: string;
  bytes: number;
  // Events appended and not yet settled.
  open: number;
}

/** What an earlier process journaled and never settled. */
export interface RecoveredUsage {
  messages: SpooledMessage[];
  // Lines a machine crash cut off mid-write.
  torn: string[];
}

/**
 * A write-ahead file of usage events: a service appends each event before the answer it
 * bills leaves the process, and settles it once JetStream or the spool holds it, so a process
 * killed in between leaves the event here for its successor to recover.
 *
 * Appends are plain write() calls on a descriptor opened once, without fsync: written data is
 * in the kernel's page cache the moment write() returns, and a killed process (SIGKILL, the
 * OOM killer, a crash) does not take the page cache with it. Only a machine crash or power
 * loss can lose the last few seconds, and an fsync per request (a disk flush, milliseconds on
 * most volumes) on every answer's path is not worth that. Recovered events go to the spool,
 * which does fsync.
 *
 * The directory belongs to one process: a second one starting on it would take the first
 * one's live segment as its own leftovers.
 */
export class UsageJournal {
  private readonly leftovers: string[];
  private current: Segment;
  // Undefined once closed: a descriptor number used after close may already name another file or socket.
  private descriptor: number | undefined;
  private sequence = 0;

  constructor(
    private readonly directory: string,
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {
    mkdirSync(directory, { recursive: true });
    this.leftovers = readdirSync(directory)
      .filter((name) => segmentName.test(name))
      .map((name) => join(directory, name));
    ({ segment: this.current, descriptor: this.descriptor } = this.openSegment());
  }

  /**
   * Hands what earlier processes left to `keep`, which must make it durable (it throws if it
   * cannot), and then deletes their files. A crash in between recovers them again, which is
   * safe: JetStream's message id and ledger's unique request id drop the copies.
   */
  recover(keep: (recovered: RecoveredUsage) => void): void {
    for (const path of this.leftovers.splice(0)) {
      keep(readSpooledMessages(path));
      rmSync(path, { force: true });
    }
  }

  /** Appends the message at once; the returned function settles it (call it once JetStream or the spool holds it). */
  append(message: SpooledMessage): () => void {
    if (this.descriptor === undefined) throw new Error("the usage journal is closed");
    const line = spooledLine(message);
    appendFileSync(this.descriptor, line);
    const segment = this.current;
    segment.bytes += Buffer.byteLength(line);
    segment.open += 1;
    if (segment.bytes >= this.segmentBytes) this.startSegment();
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      this.settle(segment);
    };
  }

  /** Closes the file, and deletes it when nothing in it is unsettled. */
  close(): void {
    if (this.descriptor === undefined) return;
    closeSync(this.descriptor);
    this.descriptor = undefined;
    if (this.current.open === 0) rmSync(this.current.path, { force: true });
  }

  private settle(segment: Segment): void {
    segment.open -= 1;
    if (segment.open > 0) return;
    // Everything in it is held elsewhere now: the current file is emptied, a closed one goes.
    if (segment !== this.current) rmSync(segment.path, { force: true });
    else if (segment.bytes > 0 && this.descriptor !== undefined) {
      ftruncateSync(this.descriptor, 0);
      segment.bytes = 0;
    }
  }

  private startSegment(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor);
    ({ segment: this.current, descriptor: this.descriptor } = this.openSegment());
  }

  private openSegment(): { segment: Segment; descriptor: number } {
    this.sequence += 1;
    const path = join(this.directory, `journal-${Date.now()}-${process.pid}-${this.sequence}.jsonl`);
    // Append mode: after the file is emptied, the next line starts at its beginning again.
    return { segment: { path, bytes: 0, open: 0 }, descriptor: openSync(path, "a") };
  }
}
