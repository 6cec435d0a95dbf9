import { LogCapture } from "@gateway/proto/common/v1/common";
import { KeyStatus } from "@gateway/proto/ledger/v1/ledger";
import { describe, expect, it } from "vitest";
import { cacheSeconds, keyStatusAnswer } from "./resolve-key.js";

const now = new Date("2030-01-01T00:00:00Z");
const key = { id: "k", accountId: "a", modelGroup: "default", expiresAt: null, revokedAt: null };

describe("keyStatusAnswer", () => {
  it("tells unknown, active, revoked and expired apart, revocation first", () => {
    expect(keyStatusAnswer(null, now).status).toBe(KeyStatus.KEY_STATUS_UNKNOWN);
    expect(keyStatusAnswer(key, now)).toEqual({
      status: KeyStatus.KEY_STATUS_ACTIVE,
      keyId: "k",
      accountId: "a",
      modelGroup: "default",
      multiplierBasisPoints: 10_000,
      canReadLogs: false,
    });
    expect(keyStatusAnswer({ ...key, canReadLogs: true }, now).canReadLogs).toBe(true);
    expect(keyStatusAnswer(null, now).canReadLogs).toBe(false);
    const past = new Date(now.getTime() - 1);
    expect(keyStatusAnswer({ ...key, expiresAt: past }, now).status).toBe(KeyStatus.KEY_STATUS_EXPIRED);
    expect(keyStatusAnswer({ ...key, expiresAt: past, revokedAt: past }, now).status).toBe(
      KeyStatus.KEY_STATUS_REVOKED,
    );
  });

  it("carries the account's log capture and the key's spending cap only when they are set", () => {
    const capped = { ...key, spendCapMicros: 12_500_000n, account: { logCapture: "metadata" } };
    expect(keyStatusAnswer(capped, now)).toMatchObject({
      logCapture: LogCapture.LOG_CAPTURE_METADATA,
      spendCapMicros: 12_500_000,
    });
    const zeroCap = { ...key, spendCapMicros: 0n, account: { logCapture: "off" } };
    expect(keyStatusAnswer(zeroCap, now)).toMatchObject({ logCapture: LogCapture.LOG_CAPTURE_OFF, spendCapMicros: 0 });
    const defaults = keyStatusAnswer({ ...key, spendCapMicros: null, account: { logCapture: null } }, now);
    expect(defaults.logCapture).toBeUndefined();
    expect(defaults.spendCapMicros).toBeUndefined();
  });
});

describe("cacheSeconds", () => {
  it("caches unknown keys briefly and never caches an active key past its expiry", () => {
    expect(cacheSeconds(null, keyStatusAnswer(null, now), now)).toBe(10);
    expect(cacheSeconds(key, keyStatusAnswer(key, now), now)).toBe(60);
    const soon = { ...key, expiresAt: new Date(now.getTime() + 5_500) };
    expect(cacheSeconds(soon, keyStatusAnswer(soon, now), now)).toBe(6);
  });
});
