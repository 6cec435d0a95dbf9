import { findAccount } from "../accounts/find-account.js";
import { lockAccount } from "../accounts/lock-account.js";
import type { Database } from "../database.js";
import { accountCapReached } from "../ledger-errors.js";
import { newOutTradeNo } from "./out-trade-no.js";
import { MICROS_PER_FEN, type PaymentProviderName } from "./payment-provider.js";

export interface NewTopUpOrder {
  accountId: string;
  provider: PaymentProviderName;
  /** Whole fen, at least 100. */
  amountFen: bigint;
  merchantId: string;
  expiresInMs: number;
}

const REUSE_MIN_LEFT_MS = 5 * 60_000;

/**
 * Opens an order in state `created`; the console then places it with the provider under its
 * number. A second click on "Pay" for the same amount and method gets the order already open
 * (the providers answer a repeated placement with the same QR code), so abandoned attempts do
 * not pile up; one about to expire is not reused, as the buyer would have no time to pay it.
 * An account holds at most `maxOpen` orders still open for payment.
 */
export async function createTopUpOrder(database: Database, input: NewTopUpOrder, maxOpen: number, now = new Date()) {
  return database.$transaction(async (transaction) => {
    await findAccount(transaction, input.accountId);
    // Serialised per account, so simultaneous orders cannot pass the cap together nor both miss the open one.
    await lockAccount(transaction, input.accountId);
    const reusable = await transaction.topUpOrder.findFirst({
      where: {
        accountId: input.accountId,
        state: "created",
        provider: input.provider,
        merchantId: input.merchantId,
        amountMicros: input.amountFen * MICROS_PER_FEN,
        expiresAt: { gt: new Date(now.getTime() + Math.min(REUSE_MIN_LEFT_MS, input.expiresInMs / 2)) },
      },
      orderBy: { expiresAt: "desc" },
    });
    if (reusable) return reusable;
    const open = await transaction.topUpOrder.count({
      where: { accountId: input.accountId, state: "created", expiresAt: { gt: now } },
    });
    if (open >= maxOpen)
      throw accountCapReached("top-up orders awaiting payment", maxOpen, "pay or wait for one to expire");
    return transaction.topUpOrder.create({ data: orderData(input, now) });
  });
}

function orderData(input: NewTopUpOrder, now: Date) {
  return {
    outTradeNo: newOutTradeNo(),
    accountId: input.accountId,
    provider: input.provider,
    merchantId: input.merchantId,
    amountMicros: input.amountFen * MICROS_PER_FEN,
    createdAt: now,
    expiresAt: new Date(now.getTime() + input.expiresInMs),
  };
}
