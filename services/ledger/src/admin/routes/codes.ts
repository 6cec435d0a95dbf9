import type { Router } from "express";
import { z } from "zod";
import { cursorParam } from "../../account-api/cursor.js";
import { listPage } from "../../account-api/page.js";
import { dateTime } from "../../http/input-fields.js";
import { createCodeBatch } from "../../prepaid-codes/create-code-batch.js";
import {
  codeState,
  findBatchCodes,
  findCodeBatchPage,
  type ListedCode,
  type TalliedBatch,
} from "../../prepaid-codes/list-codes.js";
import { revokeCodes } from "../../prepaid-codes/revoke-codes.js";
import type { AdminDependencies } from "../dependencies.js";
import { parseInput, yuanToMicros } from "../parse-input.js";
import { tokenHolder } from "../token-holder.js";

// The CLI's prepaid codes (pnpm gw code ...), audited as the CLI's; the console's pages reach the same functions over gRPC.

const batchBody = z.object({
  yuan: z.union([z.string(), z.number()]),
  count: z.number().int().min(1).max(1000),
  expires_at: dateTime.refine((at) => at.getTime() > Date.now(), "must be in the future").optional(),
  note: z.string().trim().max(500).default(""),
});
const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: cursorParam(z.uuid()).optional(),
});
const revokeBody = z.object({ target: z.string().trim().min(1).max(100) });

const iso = (date: Date | null) => date?.toISOString() ?? null;

const batchJson = (batch: TalliedBatch) => ({
  batch_id: batch.id,
  amount_micros: batch.amountMicros.toString(),
  count: batch.codeCount,
  expires_at: iso(batch.expiresAt),
  note: batch.note,
  created_by: batch.createdBy,
  created_at: batch.createdAt.toISOString(),
  redeemed: batch.redeemed,
  revoked: batch.revoked,
});

const codeJson = (code: ListedCode, batch: TalliedBatch) => ({
  code_id: code.id,
  code_prefix: code.codePrefix,
  state: codeState(code, batch),
  redeemed_at: iso(code.redeemedAt),
  redeemed_by: code.redeemedBy,
  revoked_at: iso(code.revokedAt),
  out_trade_no: code.order?.outTradeNo ?? null,
});

export function codeRoutes(router: Router, { database }: AdminDependencies): void {
  /** Makes a batch; the clear codes are in this answer only (ledger keeps their hashes). */
  router.post("/codes/batches", async (request, response) => {
    const body = parseInput(batchBody, request.body);
    const { batch, codes } = await createCodeBatch(
      database,
      {
        amountMicros: yuanToMicros(body.yuan, "yuan", 1n),
        count: body.count,
        expiresAt: body.expires_at,
        note: body.note,
      },
      tokenHolder(request),
    );
    response.status(201).json({ ...batchJson({ ...batch, redeemed: 0, revoked: 0 }), codes });
  });

  router.get("/codes/batches", async (request, response) => {
    const { limit, cursor } = parseInput(pageQuery, request.query);
    response.json(listPage(await findCodeBatchPage(database, limit, cursor), limit, (row) => row, batchJson));
  });

  router.get("/codes/batches/:batchId", async (request, response) => {
    const batchId = parseInput(z.uuid(), request.params.batchId);
    const { batch, codes } = await findBatchCodes(database, batchId);
    response.json({ ...batchJson(batch), codes: codes.map((code) => codeJson(code, batch)) });
  });

  /** Revokes a code (clear text or id) or a batch's unused codes. */
  router.post("/codes/revoke", async (request, response) => {
    const { target } = parseInput(revokeBody, request.body);
    response.json({ revoked_code_ids: await revokeCodes(database, target, tokenHolder(request)) });
  });
}
