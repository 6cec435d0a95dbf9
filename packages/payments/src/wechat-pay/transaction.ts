import { z } from "zod";
import { providerTime } from "../china-time.js";
import type { ProviderPayment } from "../payment.js";

/** The transaction object of a notification's decrypted resource and of an order query. */
export const wechatPayTransaction = z
  .object({
    appid: z.string(),
    mchid: z.string(),
    out_trade_no: z.string(),
    transaction_id: z.string().optional(),
    trade_type: z.string().optional(),
    trade_state: z.string(),
    trade_state_desc: z.string().optional(),
    success_time: z.string().optional(),
    amount: z.object({
      total: z.number().int().nonnegative().optional(),
      payer_total: z.number().int().nonnegative().optional(),
      currency: z.string().default("CNY"),
    }),
  })
  // An unpaid order's query may leave the total out; a paid one without it says nothing to credit.
  .refine((transaction) => transaction.trade_state !== "SUCCESS" || transaction.amount.total !== undefined, {
    message: "a paid transaction needs amount.total",
  });
export type WechatPayTransaction = z.infer<typeof wechatPayTransaction>;

export function paymentOfTransaction(transaction: WechatPayTransaction): ProviderPayment {
  return {
    provider: "wechat_pay",
    outTradeNo: transaction.out_trade_no,
    providerTradeNo: transaction.transaction_id ?? "",
    state: transaction.trade_state,
    paid: transaction.trade_state === "SUCCESS",
    amountFen: transaction.amount.total ?? 0,
    currency: transaction.amount.currency,
    appId: transaction.appid,
    merchantId: transaction.mchid,
    paidAt: providerTime(transaction.success_time),
  };
}
