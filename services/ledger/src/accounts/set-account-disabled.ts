import type { Actor } from "../audit/record-audit.js";
import { recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { findAccount } from "./find-account.js";

/**
 * Disables (or enables again) an account, audited in the same transaction. ResolveKey answers
 * a disabled account's keys as revoked; every key is then announced like a revocation, so
 * ledger's Redis copy and every edge's in-process copy drop it at once (and, on enable, the
 * cached refusals go too).
 */
export async function setAccountDisabled(
  database: Database,
  announce: (keyHash: string) => Promise<void>,
  actor: Actor,
  accountId: string,
  disabled: boolean,
) {
  const { account, keyHashes } = await database.$transaction(async (transaction) => {
    const before = await findAccount(transaction, accountId);
    if ((before.disabledAt !== null) === disabled) return { account: before, keyHashes: [] };
    const { apiKeys, ...account } = await transaction.account.update({
      where: { id: accountId },
      data: { disabledAt: disabled ? new Date() : null },
      include: { apiKeys: { select: { keyHash: true } } },
    });
    await recordAudit(transaction, {
      actor,
      action: disabled ? "account.disable" : "account.enable",
      accountId,
      before: { disabledAt: before.disabledAt },
      after: { disabledAt: account.disabledAt },
    });
    return { account, keyHashes: apiKeys.map((key) => key.keyHash) };
  });
  await Promise.all(keyHashes.map((keyHash) => announce(keyHash)));
  return account;
}
