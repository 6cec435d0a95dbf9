import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** One usage event that could not be published, as it will be published later. */
export interface SpooledMessage {
  subject: string;
  msgID: string;
  data: string;
  headers: Record<string, string>;
}

const spooledMessage = z.object({
  subject: z.string().min(1),
  msgID: z.string().min(1),
  data: z.string(),
  headers: z.record(z.string(), z.string()),
});

/** What one drain did; torn lines (a crash mid-write) are skipped, and handed back for the log. */
export interface DrainOutcome {
  sent: number;
  kept: number;
  torn: string[];
}

/** The message a spool or journal line holds, undefined for a line that is not one (torn, or a journal's mark). */
export function parseSpooledLine(line: string): SpooledMessage | undefined {
  try {
    const parsed = spooledMessage.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** One message as a line of a spool or journal file. */
export const spooledLine = (message: SpooledMessage) => `${JSON.stringify(message)}\n`;

/** The whole messages of a spool or journal file, and the lines a crash cut (which cannot be published). */
export function readSpooledMessages(file: string): { messages: SpooledMessage[]; torn: string[] } {
  const messages: SpooledMessage[] = [];
  const torn: string[] = [];
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const message = parseSpooledLine(line);
    if (message) messages.push(message);
    else torn.push(line);
  }
  return { messages, torn };
}

/**
 * A bounded, durable file of usage events NATS did not take. Each entry is fsynced before
 * the publisher moves on, so a router restart loses nothing; replaying is safe because the
 * JetStream message id (the request id) and ledger's unique request id drop duplicates.
 */
export class UsageSpool {
  private readonly file: string;
  private readonly draining: string;

  constructor(
    directory: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(directory, { recursive: true });
    this.file = join(directory, "usage.jsonl");
    this.draining = join(directory, "usage.draining.jsonl");
  }

  /** Appends a message durably; false when the spool is full (the caller must log the event). */
  add(message: SpooledMessage): boolean {
    return this.addAll([message]).length === 0;
  }

  /**
   * Appends, with one fsync, the messages that fit in order; hands back those that did not
   * (the caller must log them).
   */
  addAll(messages: readonly SpooledMessage[]): SpooledMessage[] {
    let size = this.size();
    const fitting = messages.findIndex((message) => {
      size += Buffer.byteLength(spooledLine(message));
      return size > this.maxBytes;
    });
    const kept = fitting === -1 ? messages : messages.slice(0, fitting);
    if (kept.length > 0) this.append(kept);
    return messages.slice(kept.length);
  }

  /**
   * Appends and fsyncs before returning. A line torn by a crash has no newline; one is put
   * after it first, so the torn line stays alone and the new ones stay whole.
   */
  private append(messages: readonly SpooledMessage[]): void {
    const descriptor = openSync(this.file, "a+");
    try {
      const { size } = fstatSync(descriptor);
      const last = Buffer.alloc(1);
      const torn = size > 0 && readSync(descriptor, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
      const lines = messages.map(spooledLine).join("");
      appendFileSync(descriptor, torn ? `\n${lines}` : lines);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  }

  size(): number {
    return (
      (existsSync(this.file) ? statSync(this.file).size : 0) +
      (existsSync(this.draining) ? statSync(this.draining).size : 0)
    );
  }

  /**
   * Hands every spooled message to `send`; those it fails go back into the spool, fsynced
   * before the drained file is removed. The file is renamed first, so a crash mid-drain
   * leaves it to be drained (again) on restart; duplicates are dropped downstream.
   */
  async drain(send: (message: SpooledMessage) => Promise<void>): Promise<DrainOutcome> {
    if (!existsSync(this.draining)) {
      if (!existsSync(this.file)) return { sent: 0, kept: 0, torn: [] };
      renameSync(this.file, this.draining);
    }
    const { messages, torn } = readSpooledMessages(this.draining);
    let sent = 0;
    const failed: SpooledMessage[] = [];
    for (const message of messages) {
      try {
        await send(message);
        sent += 1;
      } catch {
        failed.push(message);
      }
    }
    if (failed.length > 0) this.append(failed);
    rmSync(this.draining);
    return { sent, kept: failed.length, torn };
  }
}
