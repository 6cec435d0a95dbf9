import type { Database } from "../database.js";
import { newPrepaidCode, normalizePrepaidCode, prepaidCodeHash, prepaidCodePrefix } from "./prepaid-code.js";

export interface NewCodeBatch {
  amountMicros: bigint;
  count: number;
  expiresAt: Date | undefined;
  note: string;
  createdBy: string;
}

/** Makes a batch and its codes in one transaction; the clear codes are returned here only. */
export async function createCodeBatch(database: Database, input: NewCodeBatch) {
  const codes = Array.from({ length: input.count }, newPrepaidCode);
  const batch = await database.$transaction(async (transaction) => {
    const created = await transaction.prepaidCodeBatch.create({
      data: {
        amountMicros: input.amountMicros,
        codeCount: input.count,
        expiresAt: input.expiresAt ?? null,
        note: input.note,
        createdBy: input.createdBy,
      },
    });
    await transaction.prepaidCode.createMany({
      data: codes.map((code) => ({
        batchId: created.id,
        codeHash: prepaidCodeHash(normalizePrepaidCode(code)!),
        codePrefix: prepaidCodePrefix(code),
      })),
    });
    return created;
  });
  return { batch, codes };
}
