import { unaryHandler } from "@gateway/platform";
import type {
  BatchRequest,
  CreateCodeBatchRequest,
  FindTopUpOrderRequest,
  GetOverviewRequest,
  ListAllTopUpOrdersRequest,
  ListCodeBatchesRequest,
  OperationsServiceServer,
  RecordOrderCheckRequest,
  RedeemCodeRequest,
  RevokeCodesRequest,
} from "@gateway/proto/ledger/v1/operations";
import { z } from "zod";
import { listPage } from "../account-api/page.js";
import type { CommittedBalance } from "../accounts/committed-copies.js";
import { parseInput } from "../admin/parse-input.js";
import { accountIdOf, outTradeNo } from "../console/requests.js";
import { topUpOrderMessage } from "../console/to-proto.js";
import type { Database } from "../database.js";
import { topUpOrderNotFound } from "../ledger-errors.js";
import { createCodeBatch } from "../prepaid-codes/create-code-batch.js";
import { findBatchCodes, findCodeBatchPage } from "../prepaid-codes/list-codes.js";
import { redeemCode } from "../prepaid-codes/redeem-code.js";
import { revokeCodes } from "../prepaid-codes/revoke-codes.js";
import { findAllTopUpOrderPage, findTopUpOrder } from "../topups/all-top-up-orders.js";
import { recordOrderCheck } from "../topups/audit-order-check.js";
import { readOverview } from "./read-overview.js";
import {
  batchPageInput,
  codeBatchInput,
  orderCheckInput,
  orderFilterInput,
  overviewInput,
  revokeInput,
} from "./requests.js";
import { batchMessage, codeMessage, overviewMessage } from "./to-proto.js";

export interface OperationsDependencies {
  database: Database;
  /** Writes a committed balance where router checks reservations (usage/settle-reservations.ts). */
  publishBalance: (accountId: string, balance: CommittedBalance) => Promise<void>;
}

const nextCursor = (page: { next_cursor: string | null }) => page.next_cursor ?? "";

/** OperationsService: prepaid codes, every account's orders and the overview, for the console's operators. */
export function operationsService({ database, publishBalance }: OperationsDependencies): OperationsServiceServer {
  return {
    createCodeBatch: unaryHandler(async (request: CreateCodeBatchRequest) => {
      const input = parseInput(codeBatchInput, request);
      const { batch, codes } = await createCodeBatch(
        database,
        { amountMicros: input.amountMicros, count: input.count, expiresAt: input.expiresAtMs, note: input.note },
        input.actor,
      );
      return { batch: batchMessage({ ...batch, redeemed: 0, revoked: 0 }), codes };
    }),
    listCodeBatches: unaryHandler(async (request: ListCodeBatchesRequest) => {
      const { limit, cursor } = parseInput(batchPageInput, {
        limit: request.limit,
        cursor: request.cursor || undefined,
      });
      const page = listPage(await findCodeBatchPage(database, limit, cursor), limit, (row) => row, batchMessage);
      return { batches: page.data, nextCursor: nextCursor(page) };
    }),
    listBatchCodes: unaryHandler(async (request: BatchRequest) => {
      const batchId = parseInput(z.uuid(), request.batchId);
      const { batch, codes } = await findBatchCodes(database, batchId);
      return { batch: batchMessage(batch), codes: codes.map((code) => codeMessage(code, batch)) };
    }),
    revokeCodes: unaryHandler(async (request: RevokeCodesRequest) => {
      const { target, actor } = parseInput(revokeInput, request);
      return { revokedCodeIds: await revokeCodes(database, target, actor) };
    }),
    redeemCode: unaryHandler(async (request: RedeemCodeRequest) => {
      const accountId = accountIdOf(request.accountId);
      const { order, balance } = await redeemCode(database, accountId, request.code.slice(0, 100));
      await publishBalance(accountId, balance);
      return { order: topUpOrderMessage(order), balanceMicros: Number(balance.micros) };
    }),

    listAllTopUpOrders: unaryHandler(async (request: ListAllTopUpOrdersRequest) => {
      const filter = parseInput(orderFilterInput, {
        ...request,
        after: request.cursor || undefined,
        from: request.fromMs,
        to: request.toMs,
      });
      const rows = await findAllTopUpOrderPage(database, filter);
      const page = listPage(
        rows,
        filter.limit,
        (order) => order,
        (order) => ({
          ...topUpOrderMessage(order),
          accountName: order.account.name,
        }),
      );
      return { orders: page.data, nextCursor: nextCursor(page) };
    }),
    findTopUpOrder: unaryHandler(async (request: FindTopUpOrderRequest) => {
      if (!outTradeNo.safeParse(request.outTradeNo).success) throw topUpOrderNotFound(request.outTradeNo);
      return topUpOrderMessage(await findTopUpOrder(database, request.outTradeNo));
    }),
    recordOrderCheck: unaryHandler(async (request: RecordOrderCheckRequest) => {
      if (!outTradeNo.safeParse(request.outTradeNo).success) throw topUpOrderNotFound(request.outTradeNo);
      const { actor, result } = parseInput(orderCheckInput, request);
      return topUpOrderMessage(await recordOrderCheck(database, actor, request.outTradeNo, result));
    }),

    getOverview: unaryHandler(async (request: GetOverviewRequest) => {
      const period = parseInput(overviewInput, {
        from: request.fromDay || undefined,
        to: request.toDay || undefined,
        top: request.top,
      });
      return overviewMessage(await readOverview(database, period));
    }),
  };
}
