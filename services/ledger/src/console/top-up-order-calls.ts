import { unaryHandler } from "@gateway/platform";
import type {
  ConsoleServiceServer,
  CreateTopUpOrderRequest,
  ListTopUpOrdersRequest,
  TopUpOrderRequest,
} from "@gateway/proto/ledger/v1/console";
import { listPage } from "../account-api/page.js";
import { parseInput } from "../admin/parse-input.js";
import { topUpOrderNotFound } from "../ledger-errors.js";
import { findAccountTopUpOrder, findTopUpOrderPage } from "../topups/account-top-up-orders.js";
import { createTopUpOrder } from "../topups/create-top-up-order.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { accountIdOf, createTopUpOrderInput, nextCursor, outTradeNo, pageOf } from "./requests.js";
import { topUpOrderMessage } from "./to-proto.js";

type TopUpOrderCalls = Pick<ConsoleServiceServer, "createTopUpOrder" | "getTopUpOrder" | "listTopUpOrders">;

/** An account's top-up orders: the console opens one before showing the payment QR code, and lists them. */
export function topUpOrderCalls({ database, accountCaps }: ConsoleDependencies): TopUpOrderCalls {
  return {
    createTopUpOrder: unaryHandler(async (request: CreateTopUpOrderRequest) => {
      const accountId = accountIdOf(request.accountId);
      const input = { accountId, ...parseInput(createTopUpOrderInput, request) };
      const order = await createTopUpOrder(database, input, accountCaps.openTopUps);
      return topUpOrderMessage(order);
    }),
    getTopUpOrder: unaryHandler(async (request: TopUpOrderRequest) => {
      const accountId = accountIdOf(request.accountId);
      if (!outTradeNo.safeParse(request.outTradeNo).success) throw topUpOrderNotFound(request.outTradeNo);
      return topUpOrderMessage(await findAccountTopUpOrder(database, accountId, request.outTradeNo));
    }),
    listTopUpOrders: unaryHandler(async (request: ListTopUpOrdersRequest) => {
      const accountId = accountIdOf(request.accountId);
      const { limit, cursor } = pageOf(request);
      const rows = await findTopUpOrderPage(database, accountId, limit, cursor);
      const page = listPage(rows, limit, (order) => order, topUpOrderMessage);
      return { orders: page.data, nextCursor: nextCursor(page) };
    }),
  };
}
