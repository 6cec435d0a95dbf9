import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals vendor API keys with AES-256-GCM under the deployment's catalogue key. The channel's
 * name is the additional data, so a sealed key copied to another channel does not open.
 */
export class KeyCipher {
  private readonly key: Buffer;

  constructor(encodedKey: string) {
    this.key = decodeKey(encodedKey);
  }

  seal(channel: string, apiKey: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    cipher.setAAD(Buffer.from(channel));
    const sealed = Buffer.concat([cipher.update(apiKey, "utf8"), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), sealed]);
  }

  open(channel: string, sealed: Buffer): string {
    const decipher = createDecipheriv("aes-256-gcm", this.key, sealed.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(channel));
    decipher.setAuthTag(sealed.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  }
}

/** 32 bytes, as 64 hex digits or base64 (`openssl rand -base64 32`). */
function decodeKey(encoded: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(encoded) ? Buffer.from(encoded, "hex") : Buffer.from(encoded, "base64");
  if (key.length !== 32) {
    throw new Error("CATALOGUE_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)");
  }
  return key;
}

/** What is shown of a key once stored: its prefix up to the first '-' and its last four characters. */
export function maskKey(apiKey: string): string {
  const prefix = /^[A-Za-z]{1,8}-/.exec(apiKey)?.[0] ?? "";
  return apiKey.length <= 8 ? "…" : `${prefix}…${apiKey.slice(-4)}`;
}
