import { GatewayError } from "@gateway/platform";
import type { CodeBatch, PrepaidCode } from "@gateway/proto/ledger/v1/operations";
import type { Response, Router } from "express";
import { z } from "zod";
import type { RedeemThrottle } from "../codes/redeem-throttle.js";
import type { AdminGuards } from "../http/admin-guards.js";
import { ConsoleError, parseInput } from "../http/console-error.js";
import { csvCell } from "../http/csv.js";
import { isoTime, orderJson } from "../http/to-json.js";
import type { Operations } from "../ledger-client.js";
import { sessionOf } from "../sessions/require-session.js";

export interface CodeRouteDependencies {
  operations: Operations;
  throttle: RedeemThrottle;
}

const MICROS_PER_FEN = 10_000;

const redeemBody = z.object({ code: z.string().trim().min(1).max(100) });
const batchBody = z.object({
  // Whole fen, 1 to 100,000 yuan a code.
  amountFen: z.number().int().min(100).max(10_000_000),
  count: z.number().int().min(1).max(1000),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  note: z.string().trim().max(500).default(""),
});
const pageQuery = z.object({ cursor: z.string().max(512).optional() });
const revokeBody = z.object({ target: z.string().trim().min(1).max(100) });

const batchJson = (batch: CodeBatch) => ({
  batchId: batch.batchId,
  amountMicros: batch.amountMicros,
  count: batch.count,
  expiresAt: isoTime(batch.expiresAtMs),
  note: batch.note,
  createdBy: batch.createdBy,
  createdAt: isoTime(batch.createdAtMs),
  redeemed: batch.redeemed,
  revoked: batch.revoked,
});

const codeJson = (code: PrepaidCode) => ({
  codeId: code.codeId,
  codePrefix: code.codePrefix,
  state: code.state,
  redeemedAt: isoTime(code.redeemedAtMs),
  redeemedBy: code.redeemedBy || null,
  revokedAt: isoTime(code.revokedAtMs),
  outTradeNo: code.outTradeNo || null,
});

const csv = (header: string[], rows: unknown[][]) =>
  [header, ...rows].map((row) => `${row.map(csvCell).join(",")}\r\n`).join("");

function sendCsv(response: Response, filename: string, text: string) {
  response.setHeader("content-type", "text/csv; charset=utf-8");
  response.setHeader("content-disposition", `attachment; filename="${filename}"`);
  response.send(text);
}

/**
 * Prepaid codes: an account redeems one on the top-up page (throttled against guessing);
 * admins make batches (the clear codes only in the answer that makes them, with their CSV),
 * list them, export a batch's state as CSV and revoke unused codes.
 */
export function codeRoutes(router: Router, dependencies: CodeRouteDependencies, guards: AdminGuards): void {
  const { operations, throttle } = dependencies;

  router.post("/topups/redeem", async (request, response) => {
    const { code } = parseInput(redeemBody, request.body);
    const accountId = sessionOf(response).accountId;
    // The socket's address, or the proxy's X-Forwarded-For where Express is told to trust it.
    const address = request.ip ?? "unknown";
    const wait = await throttle.take(accountId, address);
    if (wait !== undefined) {
      response.setHeader("retry-after", String(wait));
      throw new ConsoleError(429, "too_many_attempts", `Too many wrong codes; try again in ${wait} seconds.`);
    }
    try {
      const redeemed = await operations.redeemCode({ accountId, code });
      await throttle.giveBack(accountId, address);
      response.json({ order: orderJson(redeemed.order!), balanceMicros: redeemed.balanceMicros });
    } catch (error) {
      // A code that cannot be redeemed keeps its attempt; anything else was no guess.
      if (!(error instanceof GatewayError && error.httpStatus === 404)) await throttle.giveBack(accountId, address);
      throw error;
    }
  });

  router.post("/admin/codes", guards.admin, async (request, response) => {
    const body = parseInput(batchBody, request.body);
    // Ledger audits the batch (`code.create`) in the transaction that makes it.
    const { batch, codes } = await operations.createCodeBatch({
      amountMicros: body.amountFen * MICROS_PER_FEN,
      count: body.count,
      expiresAtMs: body.expiresAt ? Date.parse(body.expiresAt) : 0,
      note: body.note,
      actor: guards.actorOf(response),
    });
    const created = batchJson(batch!);
    const rows = codes.map((code) => [code, created.amountMicros / 1_000_000, created.expiresAt ?? "", created.note]);
    response.status(201).json({
      batch: created,
      codes,
      // Offered for download once: ledger keeps only the codes' hashes.
      csv: csv(["code", "yuan", "expiresAt", "note"], rows),
    });
  });

  router.get("/admin/codes", guards.staff, async (request, response) => {
    const { cursor } = parseInput(pageQuery, request.query);
    const page = await operations.listCodeBatches({ limit: 50, cursor: cursor ?? "" });
    response.json({ batches: page.batches.map(batchJson), nextCursor: page.nextCursor });
  });

  router.get("/admin/codes/:batchId", guards.staff, async (request, response) => {
    const { batch, codes } = await operations.listBatchCodes({ batchId: request.params.batchId as string });
    response.json({ batch: batchJson(batch!), codes: codes.map(codeJson) });
  });

  router.get("/admin/codes/:batchId/csv", guards.staff, async (request, response) => {
    const { batch, codes } = await operations.listBatchCodes({ batchId: request.params.batchId as string });
    const rows = codes.map(codeJson).map((code) => Object.values(code));
    const header = ["codeId", "codePrefix", "state", "redeemedAt", "redeemedBy", "revokedAt", "outTradeNo"];
    sendCsv(response, `codes-${batch!.batchId}.csv`, csv(header, rows));
  });

  router.post("/admin/codes/revoke", guards.admin, async (request, response) => {
    const { target } = parseInput(revokeBody, request.body);
    const { revokedCodeIds } = await operations.revokeCodes({ target, actor: guards.actorOf(response) });
    response.json({ revokedCodeIds });
  });
}
