import { randomBytes, randomInt } from "node:crypto";

export type PaymentProvider = "wechat_pay" | "alipay";

export interface PaymentOrder {
  provider: PaymentProvider;
  outTradeNo: string;
  amountFen: number;
  description: string;
  notifyUrl: string;
  returnUrl: string | undefined;
  /** The pay page's path segment: unguessable, so only whoever saw the QR code can pay. */
  token: string;
  providerTradeNo: string;
  state: "unpaid" | "paid" | "closed";
  createdAt: Date;
  paidAt: Date | undefined;
  expiresAt: Date | undefined;
}

function digits(count: number): string {
  return Array.from({ length: count }, () => randomInt(10)).join("");
}

/** Both providers' orders, in memory for the simulator's lifetime. */
export class PaymentOrderStore {
  private readonly byNumber = new Map<string, PaymentOrder>();
  private readonly byToken = new Map<string, PaymentOrder>();

  find(provider: PaymentProvider, outTradeNo: string): PaymentOrder | undefined {
    const order = this.byNumber.get(`${provider} ${outTradeNo}`);
    // A provider closes an unpaid order itself once its expiry passes.
    if (order?.state === "unpaid" && order.expiresAt && order.expiresAt.getTime() <= Date.now()) order.state = "closed";
    return order;
  }

  findByToken(token: string): PaymentOrder | undefined {
    const order = this.byToken.get(token);
    return order && this.find(order.provider, order.outTradeNo);
  }

  create(
    fields: Pick<
      PaymentOrder,
      "provider" | "outTradeNo" | "amountFen" | "description" | "notifyUrl" | "returnUrl" | "expiresAt"
    >,
  ): PaymentOrder {
    const order: PaymentOrder = {
      ...fields,
      token: randomBytes(16).toString("hex"),
      // The shapes of real trade numbers: WeChat's 4200… (28 digits), Alipay's date-led 28 digits.
      providerTradeNo:
        fields.provider === "wechat_pay" ? `4200${digits(24)}` : `${new Date().getFullYear()}${digits(24)}`,
      state: "unpaid",
      createdAt: new Date(),
      paidAt: undefined,
    };
    this.byNumber.set(`${order.provider} ${order.outTradeNo}`, order);
    this.byToken.set(order.token, order);
    return order;
  }

  list(): PaymentOrder[] {
    return [...this.byNumber.values()];
  }
}
