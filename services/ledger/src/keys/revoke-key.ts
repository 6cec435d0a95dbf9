import type { Database } from "../database.js";
import { keyNotFound } from "../ledger-errors.js";

/**
 * Marks a key revoked (keeping the first revocation time if it was already revoked) and
 * then announces it, so caches and edges drop it. Announcing again on a repeated call is
 * harmless and heals a previous announcement that failed. With `accountId`, a key of
 * another account is not found, exactly like an unknown one.
 */
export async function revokeKey(
  database: Database,
  announce: (keyHash: string) => Promise<void>,
  keyId: string,
  accountId?: string,
) {
  const where = { id: keyId, accountId };
  await database.apiKey.updateMany({ where: { ...where, revokedAt: null }, data: { revokedAt: new Date() } });
  const key = await database.apiKey.findFirst({ where });
  if (!key) throw keyNotFound(keyId);
  await announce(key.keyHash);
  return key;
}
