/** What a verified notification or order query says about one order, the same for every provider. */
export interface ProviderPayment {
  provider: "wechat_pay" | "alipay";
  outTradeNo: string;
  /** The provider's own number for the trade (WeChat's transaction_id, Alipay's trade_no). */
  providerTradeNo: string;
  /** The provider's state as it wrote it (WeChat trade_state, Alipay trade_status). */
  state: string;
  /** SUCCESS (WeChat) or TRADE_SUCCESS/TRADE_FINISHED (Alipay). */
  paid: boolean;
  amountFen: number;
  currency: string;
  /** WeChat's appid or Alipay's app_id. */
  appId: string;
  /** WeChat's mchid; Alipay's seller_id where the provider sent one. */
  merchantId: string | undefined;
  /** When the provider took the money, where it says (WeChat success_time, Alipay gmt_payment/send_pay_date). */
  paidAt?: Date | undefined;
}

export interface ExpectedPayment {
  outTradeNo: string;
  amountFen: number;
  appId: string;
  /** Checked only when given (Alipay notifications name the seller, its queries need not). */
  merchantId?: string;
  currency?: string;
}

export type PaymentMismatch = "out_trade_no" | "amount" | "currency" | "app_id" | "merchant_id";

/**
 * Which facts of an authentic payment disagree with the order it claims to pay. A valid
 * signature proves the provider sent it, not that it pays this order: credit only when empty.
 */
export function paymentMismatches(payment: ProviderPayment, expected: ExpectedPayment): PaymentMismatch[] {
  const mismatches: PaymentMismatch[] = [];
  if (payment.outTradeNo !== expected.outTradeNo) mismatches.push("out_trade_no");
  if (payment.amountFen !== expected.amountFen) mismatches.push("amount");
  if (payment.currency !== (expected.currency ?? "CNY")) mismatches.push("currency");
  if (payment.appId !== expected.appId) mismatches.push("app_id");
  if (expected.merchantId !== undefined && payment.merchantId !== expected.merchantId) mismatches.push("merchant_id");
  return mismatches;
}
