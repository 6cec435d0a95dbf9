import { z } from "zod";
import { type Actor, recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { normalizePrepaidCode, prepaidCodeHash, prepaidCodePrefix } from "./prepaid-code.js";

/**
 * Revokes what `target` names: a clear code, a code id, or a batch id (its unused codes).
 * Used codes stay used; already revoked ones are left as they are. Answers the ids revoked now;
 * the audit entry (`code.revoke`, the codes' state before and after) commits with them.
 */
export async function revokeCodes(
  database: Database,
  target: string,
  actor: Actor,
  now = new Date(),
): Promise<string[]> {
  const normalized = normalizePrepaidCode(target);
  const id = z.uuid().safeParse(target.trim()).success ? target.trim() : undefined;
  const which = normalized
    ? { codeHash: prepaidCodeHash(normalized) }
    : id
      ? { OR: [{ id }, { batchId: id }] }
      : undefined;
  return database.$transaction(async (transaction) => {
    const revoked = which
      ? await transaction.prepaidCode.updateManyAndReturn({
          where: { ...which, redeemedAt: null, revokedAt: null },
          data: { revokedAt: now },
          select: { id: true },
        })
      : [];
    const codeIds = revoked.map((code) => code.id);
    await recordAudit(transaction, {
      actor,
      action: "code.revoke",
      // Never a clear code in the log: its prefix names it, as the batch pages do.
      target: normalized ? prepaidCodePrefix(`GW-${normalized}`) : target.trim(),
      before: { unused: codeIds },
      after: { revoked: codeIds },
    });
    return codeIds;
  });
}
