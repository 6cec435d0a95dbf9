import { notFound } from "@gateway/platform";
import { newestFirst, type Position, rowsAfter } from "../account-api/cursor.js";
import type { Database } from "../database.js";
import type { PrepaidCode, PrepaidCodeBatch } from "../generated/prisma/client.js";

export interface BatchTally {
  redeemed: number;
  revoked: number;
}

async function tallies(database: Database, batchIds: string[]): Promise<Map<string, BatchTally>> {
  const rows = await database.prepaidCode.groupBy({
    by: ["batchId"],
    where: { batchId: { in: batchIds } },
    _count: { redeemedAt: true, revokedAt: true },
  });
  return new Map(rows.map((row) => [row.batchId, { redeemed: row._count.redeemedAt, revoked: row._count.revokedAt }]));
}

const noTally: BatchTally = { redeemed: 0, revoked: 0 };

/** A page of batches, newest first, each with how many of its codes were redeemed or revoked; `limit + 1` rows. */
export async function findCodeBatchPage(database: Database, limit: number, after?: Position) {
  const batches = await database.prepaidCodeBatch.findMany({
    where: rowsAfter(after),
    orderBy: newestFirst,
    take: limit + 1,
  });
  const counted = await tallies(
    database,
    batches.map((batch) => batch.id),
  );
  return batches.map((batch) => ({ ...batch, ...(counted.get(batch.id) ?? noTally) }));
}

export type TalliedBatch = PrepaidCodeBatch & BatchTally;
export type ListedCode = PrepaidCode & { order: { outTradeNo: string } | null };

/** One batch and all its codes (at most 1000), in the order they were made. */
export async function findBatchCodes(database: Database, batchId: string) {
  const batch = await database.prepaidCodeBatch.findUnique({ where: { id: batchId } });
  if (!batch) throw notFound(`No batch of prepaid codes with id ${batchId}.`);
  const codes = await database.prepaidCode.findMany({
    where: { batchId },
    orderBy: { id: "asc" },
    include: { order: { select: { outTradeNo: true } } },
  });
  const counted = (await tallies(database, [batchId])).get(batchId) ?? noTally;
  return { batch: { ...batch, ...counted }, codes };
}

/** What became of a code, as of `now`. */
export function codeState(code: PrepaidCode, batch: PrepaidCodeBatch, now = new Date()) {
  if (code.redeemedAt) return "redeemed";
  if (code.revokedAt) return "revoked";
  return batch.expiresAt && batch.expiresAt <= now ? "expired" : "unused";
}
