/** The payment providers a top-up order can be paid through, as stored in `topup_orders.provider`. */
export const PAYMENT_PROVIDERS = ["wechat_pay", "alipay"] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

/** The `provider` of an order a prepaid code paid (prepaid-codes/redeem-code.ts): born paid, never placed anywhere. */
export const PREPAID_CODE_METHOD = "prepaid_code";
/** Every way an order is paid, as stored. */
export type TopUpMethodName = PaymentProviderName | typeof PREPAID_CODE_METHOD;

/** The order states; `created` is the only one that ever changes (see migration 0007). */
export const TOP_UP_ORDER_STATES = ["created", "paid", "closed", "failed"] as const;
export type TopUpOrderStateName = (typeof TOP_UP_ORDER_STATES)[number];

export const MICROS_PER_FEN = 10_000n;
