import { type Actor, recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { newPrepaidCode, normalizePrepaidCode, prepaidCodeHash, prepaidCodePrefix } from "./prepaid-code.js";

export interface NewCodeBatch {
  amountMicros: bigint;
  count: number;
  expiresAt: Date | undefined;
  note: string;
}

/** Makes a batch, its codes and its audit entry in one transaction; the clear codes are returned here only. */
export async function createCodeBatch(database: Database, input: NewCodeBatch, actor: Actor) {
  const codes = Array.from({ length: input.count }, newPrepaidCode);
  const batch = await database.$transaction(async (transaction) => {
    const created = await transaction.prepaidCodeBatch.create({
      data: {
        amountMicros: input.amountMicros,
        codeCount: input.count,
        expiresAt: input.expiresAt ?? null,
        note: input.note,
        createdBy: actor.identity,
      },
    });
    await transaction.prepaidCode.createMany({
      data: codes.map((code) => ({
        batchId: created.id,
        codeHash: prepaidCodeHash(normalizePrepaidCode(code)!),
        codePrefix: prepaidCodePrefix(code),
      })),
    });
    await recordAudit(transaction, {
      actor,
      action: "code.create",
      target: created.id,
      after: {
        amountMicros: created.amountMicros,
        count: created.codeCount,
        expiresAt: created.expiresAt,
        note: created.note,
      },
    });
    return created;
  });
  return { batch, codes };
}
