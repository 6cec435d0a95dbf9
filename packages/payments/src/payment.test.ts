import { describe, expect, it } from "vitest";
import { type ProviderPayment, paymentMismatches } from "./payment.js";

const payment: ProviderPayment = {
  provider: "wechat_pay",
  outTradeNo: "T1",
  providerTradeNo: "4200",
  state: "SUCCESS",
  paid: true,
  amountFen: 100,
  currency: "CNY",
  appId: "wx1",
  merchantId: "m1",
};
const order = { outTradeNo: "T1", amountFen: 100, appId: "wx1", merchantId: "m1" };

describe("paymentMismatches", () => {
  it("is empty when the payment pays the order", () => {
    expect(paymentMismatches(payment, order)).toEqual([]);
  });

  it("names every fact that differs", () => {
    const other = { ...payment, outTradeNo: "T2", amountFen: 200, currency: "USD", appId: "wx2", merchantId: "m2" };
    expect(paymentMismatches(other, order)).toEqual(["out_trade_no", "amount", "currency", "app_id", "merchant_id"]);
  });

  it("checks the merchant only when the order names one", () => {
    expect(paymentMismatches({ ...payment, merchantId: undefined }, { ...order, merchantId: undefined })).toEqual([]);
  });
});
