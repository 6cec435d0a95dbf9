import {
  appendFileSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { parseSpooledLine, type SpooledMessage, spooledLine } from "./usage-spool.js";

// A file this large is closed and a new one started, so one that never empties (steady load
// keeps some events in flight) is deleted as soon as its last event settles.
const SEGMENT_BYTES = 4 * 1024 * 1024;

const segmentName = /^journal-[\w-]+\.jsonl$/;

// An event journaled before its answer was handed to the client carries this flag; a later
// line {"delivered": <its msgID>} says the answer left. Lines without the flag were delivered
// when journaled (a stream's event follows what it delivered), as were journals written
// before the flag existed.
const awaitingDelivery = z.object({ awaitingDelivery: z.literal(true) });
const deliveredMark = z.object({ delivered: z.string().min(1) }).strict();

interface Segment {
  path: string;
  bytes: number;
  // Events appended and not yet settled.
  open: number;
}

/** What an earlier process journaled and never settled. */
export interface RecoveredUsage {
  // To bill: their answers left the process.
  messages: SpooledMessage[];
  // Not to bill: the process died before their answers left, so their clients got an error.
  undelivered: SpooledMessage[];
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
   * safe: JetStream's message id and ledger's unique request id drop the copies. An event
   * journaled awaiting delivery with no delivered mark is handed back as undelivered.
   */
  recover(keep: (recovered: RecoveredUsage) => void): void {
    const paths = this.leftovers.splice(0);
    if (paths.length === 0) return;
    keep(readJournal(paths));
    for (const path of paths) rmSync(path, { force: true });
  }

  /** Appends the message at once; the returned function settles it (call it once JetStream or the spool holds it). */
  append(message: SpooledMessage): () => void {
    const segment = this.write(spooledLine(message));
    return this.settler(segment);
  }

  /**
   * `append`, for an event whose answer has not left yet: `delivered` records that it did
   * (call it once the answer is handed to the client). A successor bills only a delivered one.
   */
  appendAwaitingDelivery(message: SpooledMessage): { settle: () => void; delivered: () => void } {
    const segment = this.write(spooledLine({ ...message, awaitingDelivery: true } as SpooledMessage));
    const settle = this.settler(segment);
    const delivered = () => {
      // Once settled the event is in JetStream or the spool: nothing is left to recover.
      if (settle.done()) return;
      this.mark(segment, `${JSON.stringify({ delivered: message.msgID })}\n`);
    };
    return { settle, delivered };
  }

  /** Closes the file, and deletes it when nothing in it is unsettled. */
  close(): void {
    if (this.descriptor === undefined) return;
    closeSync(this.descriptor);
    this.descriptor = undefined;
    if (this.current.open === 0) rmSync(this.current.path, { force: true });
  }

  private write(line: string): Segment {
    if (this.descriptor === undefined) throw new Error("the usage journal is closed");
    appendFileSync(this.descriptor, line);
    const segment = this.current;
    segment.bytes += Buffer.byteLength(line);
    segment.open += 1;
    if (segment.bytes >= this.segmentBytes) this.startSegment();
    return segment;
  }

  private settler(segment: Segment): (() => void) & { done(): boolean } {
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      this.settle(segment);
    };
    return Object.assign(settle, { done: () => settled });
  }

  // The mark goes into its event's own file, which its unsettled event keeps from being emptied.
  private mark(segment: Segment, line: string): void {
    if (segment === this.current && this.descriptor !== undefined) appendFileSync(this.descriptor, line);
    else appendFileSync(segment.path, line);
    segment.bytes += Buffer.byteLength(line);
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

/** The events of a dead process's journal files, sorted by whether their answers left it. */
function readJournal(paths: readonly string[]): RecoveredUsage {
  const found: Array<{ message: SpooledMessage; awaiting: boolean }> = [];
  const delivered = new Set<string>();
  const torn: string[] = [];
  for (const path of paths) {
    for (const line of readFileSync(path, "utf8").split("\n").filter(Boolean)) {
      const message = parseSpooledLine(line);
      if (message) {
        found.push({ message, awaiting: awaitingDelivery.safeParse(JSON.parse(line)).success });
        continue;
      }
      const mark = deliveredMark.safeParse(parsedJson(line));
      if (mark.success) delivered.add(mark.data.delivered);
      else torn.push(line);
    }
  }
  const recovered: RecoveredUsage = { messages: [], undelivered: [], torn };
  for (const { message, awaiting } of found) {
    const left = !awaiting || delivered.has(message.msgID);
    (left ? recovered.messages : recovered.undelivered).push(message);
  }
  return recovered;
}

function parsedJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
