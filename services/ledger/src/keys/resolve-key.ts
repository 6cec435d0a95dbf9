import { invalidRequest } from "@gateway/platform";
import { KeyStatus, type ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import { logCaptureOf } from "../accounts/log-capture.js";
import type { Database } from "../database.js";
import { isKeyHash } from "./api-key.js";
import type { KeyCache } from "./key-cache.js";

const KNOWN_KEY_TTL_SECONDS = 60;
// Short, so a key created just after someone tried it starts working quickly.
const UNKNOWN_KEY_TTL_SECONDS = 10;

interface StoredKey {
  id: string;
  accountId: string;
  modelGroup: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  spendCapMicros?: bigint | null;
  canReadLogs?: boolean;
  group?: { multiplierBasisPoints: number };
  account?: {
    logCapture: string | null;
    disabledAt?: Date | null;
    // An admin's group for the whole account, which its keys then serve in.
    defaultGroup?: string | null;
    group?: { multiplierBasisPoints: number } | null;
  };
}

const LIST_PRICE_BASIS_POINTS = 10_000;

/** The answer for one stored key (or none) at a given moment. */
export function keyStatusAnswer(key: StoredKey | null, now: Date): ResolveKeyResponse {
  if (!key) {
    return {
      status: KeyStatus.KEY_STATUS_UNKNOWN,
      keyId: "",
      accountId: "",
      modelGroup: "",
      multiplierBasisPoints: 0,
      canReadLogs: false,
    };
  }
  // A disabled account's keys are refused like revoked ones, and work again once it is enabled.
  const status =
    key.revokedAt || key.account?.disabledAt
      ? KeyStatus.KEY_STATUS_REVOKED
      : key.expiresAt && key.expiresAt <= now
        ? KeyStatus.KEY_STATUS_EXPIRED
        : KeyStatus.KEY_STATUS_ACTIVE;
  const accountGroup = key.account?.defaultGroup ?? undefined;
  return {
    status,
    keyId: key.id,
    accountId: key.accountId,
    modelGroup: accountGroup ?? key.modelGroup,
    multiplierBasisPoints:
      (accountGroup ? key.account?.group?.multiplierBasisPoints : key.group?.multiplierBasisPoints) ??
      LIST_PRICE_BASIS_POINTS,
    logCapture: logCaptureOf(key.account?.logCapture ?? null),
    spendCapMicros: key.spendCapMicros == null ? undefined : Number(key.spendCapMicros),
    canReadLogs: key.canReadLogs ?? false,
  };
}

/** How long an answer may be cached; an active key is never cached past its expiry. */
export function cacheSeconds(key: StoredKey | null, answer: ResolveKeyResponse, now: Date): number {
  if (answer.status === KeyStatus.KEY_STATUS_UNKNOWN) return UNKNOWN_KEY_TTL_SECONDS;
  if (answer.status === KeyStatus.KEY_STATUS_ACTIVE && key?.expiresAt) {
    const untilExpiry = Math.ceil((key.expiresAt.getTime() - now.getTime()) / 1000);
    return Math.max(1, Math.min(KNOWN_KEY_TTL_SECONDS, untilExpiry));
  }
  return KNOWN_KEY_TTL_SECONDS;
}

/** ResolveKey: Redis first, then Postgres, then fill Redis for the next caller. */
export function createKeyResolver(database: Database, cache: KeyCache) {
  return async (keyHash: string): Promise<ResolveKeyResponse> => {
    if (!isKeyHash(keyHash)) throw invalidRequest("key_hash must be the lowercase hex SHA-256 of the key", "key_hash");
    const cached = await cache.get(keyHash);
    if (cached) return cached;
    const key = await database.apiKey.findUnique({
      where: { keyHash },
      select: {
        id: true,
        accountId: true,
        modelGroup: true,
        expiresAt: true,
        revokedAt: true,
        spendCapMicros: true,
        canReadLogs: true,
        group: { select: { multiplierBasisPoints: true } },
        account: {
          select: {
            logCapture: true,
            disabledAt: true,
            defaultGroup: true,
            group: { select: { multiplierBasisPoints: true } },
          },
        },
      },
    });
    const now = new Date();
    const answer = keyStatusAnswer(key, now);
    // Not awaited: the caller need not wait for the cache, and KeyCache never rejects.
    void cache.set(keyHash, answer, cacheSeconds(key, answer, now));
    return answer;
  };
}
