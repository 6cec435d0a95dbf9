import { createHmac, timingSafeEqual } from "node:crypto";

export type Verdict = "valid" | "expired" | "forged";

/**
 * Signs and checks the URLs of generated files: an HMAC-SHA256 over the file id and the expiry
 * time, so a URL cannot be altered to reach another file or to live longer.
 */
export class FileUrlSigner {
  constructor(
    private readonly key: Buffer,
    readonly ttlSeconds: number,
  ) {}

  private signature(fileId: string, expires: number): string {
    return createHmac("sha256", this.key).update(`${fileId}\n${expires}`).digest("base64url");
  }

  /** The query string of a URL for the file that works until ttlSeconds from now. */
  query(fileId: string, nowMs = Date.now()): string {
    const expires = Math.floor(nowMs / 1000) + this.ttlSeconds;
    return `expires=${expires}&signature=${this.signature(fileId, expires)}`;
  }

  verify(fileId: string, expires: unknown, signature: unknown, nowMs = Date.now()): Verdict {
    if (typeof expires !== "string" || !/^\d{1,12}$/.test(expires) || typeof signature !== "string") return "forged";
    const expected = Buffer.from(this.signature(fileId, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return "forged";
    return Number(expires) * 1000 < nowMs ? "expired" : "valid";
  }
}
