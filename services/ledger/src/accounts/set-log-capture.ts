import type { Actor } from "../audit/record-audit.js";
import { recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { findAccount } from "./find-account.js";
import type { LogCaptureLevel } from "./log-capture.js";

/**
 * Sets an account's request-log capture (null: the deployment's default); an admin's change
 * (`actor`) is audited in the same transaction. ResolveKey answers carry the level and are
 * cached for a minute, so the account's keys are dropped from that cache: the change then
 * reaches requests as soon as the edges' few-second caches expire.
 */
export async function setLogCapture(
  database: Database,
  forgetCachedKeys: (keyHashes: string[]) => Promise<void>,
  accountId: string,
  level: LogCaptureLevel | null,
  actor?: Actor,
) {
  const { apiKeys, ...account } = await database.$transaction(async (transaction) => {
    const before = await findAccount(transaction, accountId);
    const updated = await transaction.account.update({
      where: { id: accountId },
      data: { logCapture: level },
      include: { apiKeys: { select: { keyHash: true } } },
    });
    if (actor && before.logCapture !== level) {
      await recordAudit(transaction, {
        actor,
        action: "account.set_log_capture",
        accountId,
        before: { logCapture: before.logCapture },
        after: { logCapture: level },
      });
    }
    return updated;
  });
  await forgetCachedKeys(apiKeys.map((key) => key.keyHash));
  return account;
}
