import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";

/** One usage event that could not be published, as it will be published later. */
export interface SpooledMessage {
  subject: string;
  msgID: string;
  data: string;
  headers: Record<string, string>;
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
    const line = `${JSON.stringify(message)}\n`;
    if (this.size() + Buffer.byteLength(line) > this.maxBytes) return false;
    const descriptor = openSync(this.file, "a");
    try {
      appendFileSync(descriptor, line);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    return true;
  }

  size(): number {
    return (
      (existsSync(this.file) ? statSync(this.file).size : 0) +
      (existsSync(this.draining) ? statSync(this.draining).size : 0)
    );
  }

  /**
   * Hands every spooled message to `send`; those it fails go back into the spool. The file
   * is renamed first, so a crash mid-drain leaves it to be drained (again) on restart.
   */
  async drain(send: (message: SpooledMessage) => Promise<void>): Promise<{ sent: number; kept: number }> {
    if (!existsSync(this.draining)) {
      if (!existsSync(this.file)) return { sent: 0, kept: 0 };
      renameSync(this.file, this.draining);
    }
    const lines = readFileSync(this.draining, "utf8").split("\n").filter(Boolean);
    let sent = 0;
    const failed: SpooledMessage[] = [];
    for (const line of lines) {
      const message = JSON.parse(line) as SpooledMessage;
      try {
        await send(message);
        sent += 1;
      } catch {
        failed.push(message);
      }
    }
    rmSync(this.draining);
    for (const message of failed) appendFileSync(this.file, `${JSON.stringify(message)}\n`);
    return { sent, kept: failed.length };
  }
}
