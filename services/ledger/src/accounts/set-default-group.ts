import type { Actor } from "../audit/record-audit.js";
import { recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { unknownModelGroup } from "../ledger-errors.js";
import { findAccount } from "./find-account.js";

/**
 * Puts an account in a model group (null: each key's own group again), audited. While set it
 * is the group every key of the account serves in (ResolveKey answers it), so the account's
 * keys leave ledger's key cache at once and edges' few-second caches follow.
 */
export async function setDefaultGroup(
  database: Database,
  forgetCachedKeys: (keyHashes: string[]) => Promise<void>,
  actor: Actor,
  accountId: string,
  group: string | null,
) {
  const { account, keyHashes } = await database.$transaction(async (transaction) => {
    const before = await findAccount(transaction, accountId);
    if (group !== null && !(await transaction.modelGroup.findUnique({ where: { name: group } }))) {
      throw unknownModelGroup(group);
    }
    if (before.defaultGroup === group) return { account: before, keyHashes: [] };
    const { apiKeys, ...account } = await transaction.account.update({
      where: { id: accountId },
      data: { defaultGroup: group },
      include: { apiKeys: { select: { keyHash: true } } },
    });
    await recordAudit(transaction, {
      actor,
      action: "account.set_group",
      accountId,
      before: { defaultGroup: before.defaultGroup },
      after: { defaultGroup: group },
    });
    return { account, keyHashes: apiKeys.map((key) => key.keyHash) };
  });
  await forgetCachedKeys(keyHashes);
  return account;
}
