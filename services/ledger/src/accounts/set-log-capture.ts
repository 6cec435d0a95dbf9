import type { Database } from "../database.js";
import { findAccount } from "./find-account.js";
import type { LogCaptureLevel } from "./log-capture.js";

/**
 * Sets an account's request-log capture (null: the deployment's default). ResolveKey answers
 * carry the level and are cached for a minute, so the account's keys are dropped from that
 * cache: the change then reaches requests as soon as the edges' few-second caches expire.
 */
export async function setLogCapture(
  database: Database,
  forgetCachedKeys: (keyHashes: string[]) => Promise<void>,
  accountId: string,
  level: LogCaptureLevel | null,
) {
  await findAccount(database, accountId);
  const { apiKeys, ...account } = await database.account.update({
    where: { id: accountId },
    data: { logCapture: level },
    include: { apiKeys: { select: { keyHash: true } } },
  });
  await forgetCachedKeys(apiKeys.map((key) => key.keyHash));
  return account;
}
