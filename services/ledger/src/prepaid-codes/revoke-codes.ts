import { z } from "zod";
import type { Database } from "../database.js";
import { normalizePrepaidCode, prepaidCodeHash } from "./prepaid-code.js";

/**
 * Revokes what `target` names: a clear code, a code id, or a batch id (its unused codes).
 * Used codes stay used; already revoked ones are left as they are. Answers the ids revoked now.
 */
export async function revokeCodes(database: Database, target: string, now = new Date()): Promise<string[]> {
  const normalized = normalizePrepaidCode(target);
  const id = z.uuid().safeParse(target.trim()).success ? target.trim() : undefined;
  const which = normalized
    ? { codeHash: prepaidCodeHash(normalized) }
    : id
      ? { OR: [{ id }, { batchId: id }] }
      : undefined;
  if (!which) return [];
  const revoked = await database.prepaidCode.updateManyAndReturn({
    where: { ...which, redeemedAt: null, revokedAt: null },
    data: { revokedAt: now },
    select: { id: true },
  });
  return revoked.map((code) => code.id);
}
