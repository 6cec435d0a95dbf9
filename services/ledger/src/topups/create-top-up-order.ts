import { findAccount } from "../accounts/find-account.js";
import type { Database } from "../database.js";
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

/** Opens an order in state `created`; the console then places it with the provider under its number. */
export async function createTopUpOrder(database: Database, input: NewTopUpOrder, now = new Date()) {
  await findAccount(database, input.accountId);
  return database.topUpOrder.create({
    data: {
      outTradeNo: newOutTradeNo(),
      accountId: input.accountId,
      provider: input.provider,
      merchantId: input.merchantId,
      amountMicros: input.amountFen * MICROS_PER_FEN,
      createdAt: now,
      expiresAt: new Date(now.getTime() + input.expiresInMs),
    },
  });
}
