import { randomBytes } from "node:crypto";
import { type ServiceProcess, serviceEntry, simulatorPaymentEnv, startService } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AlipayClient } from "../src/alipay/client.js";
import { type AlipayConfig, alipayConfigFromEnv } from "../src/alipay/config.js";
import { verifyAlipayNotification } from "../src/alipay/notification.js";
import { type ExpectedPayment, type PaymentMismatch, type ProviderPayment, paymentMismatches } from "../src/payment.js";
import { WechatPayClient } from "../src/wechat-pay/client.js";
import { type WechatPayConfig, wechatPayConfigFromEnv } from "../src/wechat-pay/config.js";
import { verifyWechatPayNotification } from "../src/wechat-pay/notification.js";
import { type NotifyReceiver, type ReceivedNotification, startNotifyReceiver } from "./notify-receiver.js";
import { rsaKeyPair } from "./rsa-keys.js";

let simulator: ServiceProcess;
let simulatorUrl: string;
let receiver: NotifyReceiver;
let wechatConfig: WechatPayConfig;
let alipayConfig: AlipayConfig;
let wechat: WechatPayClient;
let alipay: AlipayClient;

beforeAll(async () => {
  simulator = await startService("simulator", serviceEntry.simulator, {
    SIMULATOR_HOST: "127.0.0.1",
    SIMULATOR_PORT: "0",
  });
  simulatorUrl = `http://127.0.0.1:${simulator.ports.http}`;
  receiver = await startNotifyReceiver();
  // The merchant's settings exactly as a development stack would pass them to the console.
  const env = await simulatorPaymentEnv(simulatorUrl);
  wechatConfig = wechatPayConfigFromEnv(env)!;
  alipayConfig = alipayConfigFromEnv(env)!;
  wechat = new WechatPayClient(wechatConfig);
  alipay = new AlipayClient(alipayConfig);
});

afterAll(async () => {
  await receiver?.close();
  await simulator?.stop();
});

interface TestOrder {
  outTradeNo: string;
  /** The receiver's path this order's notifications reach. */
  path: string;
  /** The simulator's pay page (WeChat's code_url, Alipay's qr_code). */
  payUrl: string;
  expected: ExpectedPayment;
}

type Verified = { ok: true; id: string; payment: ProviderPayment } | { ok: false; reason: string };

/** What differs between the providers, so every flow below runs against both. */
interface ProviderUnderTest {
  name: string;
  order(amountFen?: number): Promise<TestOrder>;
  verify(notification: ReceivedNotification): Verified;
  query(outTradeNo: string): Promise<ProviderPayment>;
  close(outTradeNo: string): Promise<unknown>;
  states: { unpaid: string; paid: string; closed: string };
  /** What an authentic notification of another merchant's trade disagrees in. */
  foreignMismatches: PaymentMismatch[];
}

const newOrderNumber = () => `TOPUP${randomBytes(8).toString("hex")}`;

function pay(payUrl: string, form: Record<string, string> = {}): Promise<Response> {
  return fetch(payUrl, { method: "POST", body: new URLSearchParams(form) });
}

function orderCreated<T extends { ok: boolean }>(created: T): Extract<T, { ok: true }> {
  if (!created.ok) throw new Error(`order refused: ${JSON.stringify(created)}`);
  return created as Extract<T, { ok: true }>;
}

function queried(result: { ok: true; payment: ProviderPayment } | { ok: false }): ProviderPayment {
  if (!result.ok) throw new Error(`query failed: ${JSON.stringify(result)}`);
  return result.payment;
}

const wechatPay: ProviderUnderTest = {
  name: "WeChat Pay",
  async order(amountFen = 100) {
    const outTradeNo = newOrderNumber();
    const path = `/wechat/notify/${outTradeNo}`;
    const notifyUrl = `${receiver.url}${path}`;
    const { codeUrl } = orderCreated(
      await wechat.createNativeOrder({ outTradeNo, description: "Gateway top-up", amountFen, notifyUrl }),
    );
    const expected = { outTradeNo, amountFen, appId: wechatConfig.appid, merchantId: wechatConfig.mchid };
    return { outTradeNo, path, payUrl: codeUrl, expected };
  },
  verify(notification) {
    const result = verifyWechatPayNotification(notification, wechatConfig);
    return result.ok ? { ok: true, id: result.notificationId, payment: result.payment } : result;
  },
  query: async (outTradeNo) => queried(await wechat.queryOrder(outTradeNo)),
  close: (outTradeNo) => wechat.closeOrder(outTradeNo),
  states: { unpaid: "NOTPAY", paid: "SUCCESS", closed: "CLOSED" },
  foreignMismatches: ["app_id", "merchant_id"],
};

const alipayProvider: ProviderUnderTest = {
  name: "Alipay",
  async order(amountFen = 100) {
    const outTradeNo = newOrderNumber();
    const path = `/alipay/notify/${outTradeNo}`;
    const notifyUrl = `${receiver.url}${path}`;
    const { qrCode } = orderCreated(await alipay.precreate({ outTradeNo, subject: "网关充值", amountFen, notifyUrl }));
    const expected = { outTradeNo, amountFen, appId: alipayConfig.appId, merchantId: alipayConfig.sellerId };
    return { outTradeNo, path, payUrl: qrCode, expected };
  },
  verify(notification) {
    const result = verifyAlipayNotification(notification.body, alipayConfig);
    return result.ok ? { ok: true, id: result.notifyId, payment: result.payment } : result;
  },
  query: async (outTradeNo) => queried(await alipay.query(outTradeNo)),
  close: (outTradeNo) => alipay.close(outTradeNo),
  states: { unpaid: "WAIT_BUYER_PAY", paid: "TRADE_SUCCESS", closed: "TRADE_CLOSED" },
  // Alipay's form names the application, and the seller stays the one the notification is sent for.
  foreignMismatches: ["app_id"],
};

function verified(provider: ProviderUnderTest, notification: ReceivedNotification | undefined) {
  const result = provider.verify(notification!);
  if (!result.ok) throw new Error(`expected a verified notification, got ${result.reason}`);
  return result;
}

describe.each([wechatPay, alipayProvider])("$name through the simulator", (provider) => {
  it("creates an order, pays it on the pay page and verifies the notification", async () => {
    const order = await provider.order(500);
    const page = await fetch(order.payUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="pay"');
    expect(html).toContain("¥5.00");
    expect((await pay(order.payUrl)).status).toBe(200);
    const [notification] = await receiver.waitFor(order.path, 1);
    const { payment } = verified(provider, notification);
    expect(payment).toMatchObject({
      outTradeNo: order.outTradeNo,
      paid: true,
      amountFen: 500,
      state: provider.states.paid,
    });
    expect(paymentMismatches(payment, order.expected)).toEqual([]);
    expect(await provider.query(order.outTradeNo)).toMatchObject({
      paid: true,
      amountFen: 500,
      providerTradeNo: payment.providerTradeNo,
    });
    expect((await pay(order.payUrl)).status).toBe(409);
  });

  it("delivers the same notification again after the merchant fails to acknowledge it", async () => {
    const order = await provider.order();
    receiver.failNext(order.path);
    await pay(order.payUrl);
    const [first, retry] = await receiver.waitFor(order.path, 2);
    expect(verified(provider, retry).id).toBe(verified(provider, first).id);
    const deliveries = (await (await fetch(`${simulatorUrl}/_sim/payments/notifications`)).json()) as {
      data: { out_trade_no: string; attempt: number; accepted: boolean }[];
    };
    const ours = deliveries.data.filter((delivery) => delivery.out_trade_no === order.outTradeNo);
    expect(ours).toMatchObject([
      { attempt: 1, accepted: false },
      { attempt: 2, accepted: true },
    ]);
  });

  it("closes an unpaid order, which then cannot be paid", async () => {
    const order = await provider.order();
    expect(await provider.close(order.outTradeNo)).toEqual({ ok: true });
    expect(await provider.query(order.outTradeNo)).toMatchObject({ state: provider.states.closed, paid: false });
    expect((await pay(order.payUrl)).status).toBe(409);
  });

  it("forges a notification the signature check refuses, leaving the order unpaid", async () => {
    const order = await provider.order();
    await pay(order.payUrl, { fault: "forged" });
    const [forgery] = await receiver.waitFor(order.path, 1);
    expect(provider.verify(forgery!)).toEqual({ ok: false, reason: "invalid_signature" });
    expect((await provider.query(order.outTradeNo)).state).toBe(provider.states.unpaid);
  });

  it("claims a wrong amount in an authentic notification, which the caller sees as a mismatch", async () => {
    const order = await provider.order(100);
    await pay(order.payUrl, { fault: "wrong_amount" });
    const [claim] = await receiver.waitFor(order.path, 1);
    const { payment } = verified(provider, claim);
    expect(payment.amountFen).toBe(200);
    expect(paymentMismatches(payment, order.expected)).toEqual(["amount"]);
    expect((await provider.query(order.outTradeNo)).state).toBe(provider.states.unpaid);
  });

  it("sends another merchant's notification, which the caller sees as a mismatch", async () => {
    const order = await provider.order();
    await pay(order.payUrl, { fault: "other_merchant" });
    const [foreign] = await receiver.waitFor(order.path, 1);
    expect(paymentMismatches(verified(provider, foreign).payment, order.expected)).toEqual(provider.foreignMismatches);
  });

  it("duplicates a notification: every copy verifies with the same id", async () => {
    const order = await provider.order();
    await pay(order.payUrl, { fault: "duplicate", count: "3" });
    const copies = await receiver.waitFor(order.path, 3);
    expect(new Set(copies.map((copy) => verified(provider, copy).id)).size).toBe(1);
  });

  it("delivers a late notification after the delay", async () => {
    const order = await provider.order();
    const paidAt = Date.now();
    await pay(order.payUrl, { fault: "late", delay_ms: "1500" });
    const [late] = await receiver.waitFor(order.path, 1);
    expect(late!.at - paidAt).toBeGreaterThanOrEqual(1_400);
    expect(verified(provider, late).payment.paid).toBe(true);
  });
});

describe("replayed notifications", () => {
  it("WeChat Pay: the replayed capture is refused as stale", async () => {
    const order = await wechatPay.order();
    await pay(order.payUrl, { fault: "replayed", delay_ms: "0" });
    const [original, replay] = await receiver.waitFor(order.path, 2);
    expect(wechatPay.verify(original!).ok).toBe(true);
    expect(wechatPay.verify(replay!)).toEqual({ ok: false, reason: "stale_timestamp" });
  });

  it("Alipay: the replay is byte for byte the original, given away only by its notify_id", async () => {
    const order = await alipayProvider.order();
    await pay(order.payUrl, { fault: "replayed", delay_ms: "0" });
    const [original, replay] = await receiver.waitFor(order.path, 2);
    expect(replay!.body).toBe(original!.body);
    expect(verified(alipayProvider, replay).id).toBe(verified(alipayProvider, original).id);
  });
});

describe("provider errors and distrust", () => {
  it("WeChat Pay: typed errors for unknown orders and unknown merchant keys; answers by another platform key refused", async () => {
    expect(await wechat.queryOrder("NO_SUCH_ORDER")).toMatchObject({
      ok: false,
      reason: "provider_error",
      status: 404,
      code: "ORDER_NOT_EXIST",
    });
    const stranger = new WechatPayClient({ ...wechatConfig, privateKey: rsaKeyPair().privateKey });
    expect(await stranger.queryOrder("NO_SUCH_ORDER")).toMatchObject({ reason: "provider_error", code: "SIGN_ERROR" });
    const distrusting = new WechatPayClient({ ...wechatConfig, platformPublicKey: rsaKeyPair().publicKey });
    const order = await wechatPay.order();
    expect(await distrusting.queryOrder(order.outTradeNo)).toEqual({ ok: false, reason: "invalid_signature" });
  });

  it("Alipay: typed errors for unknown trades and unknown app keys; answers by another Alipay key refused", async () => {
    expect(await alipay.query("NO_SUCH_ORDER")).toMatchObject({
      reason: "provider_error",
      subCode: "ACQ.TRADE_NOT_EXIST",
    });
    const stranger = new AlipayClient({ ...alipayConfig, privateKey: rsaKeyPair().privateKey });
    expect(await stranger.query("NO_SUCH_ORDER")).toMatchObject({
      reason: "provider_error",
      subCode: "isv.invalid-signature",
    });
    const distrusting = new AlipayClient({ ...alipayConfig, alipayPublicKey: rsaKeyPair().publicKey });
    const order = await alipayProvider.order();
    expect(await distrusting.query(order.outTradeNo)).toEqual({ ok: false, reason: "invalid_signature" });
  });

  it("Alipay: a signed page-pay link opens the pay page, an altered one is refused", async () => {
    const outTradeNo = newOrderNumber();
    const notifyUrl = `${receiver.url}/alipay/notify/${outTradeNo}`;
    const link = alipay.pagePayUrl({
      outTradeNo,
      subject: "Top-up",
      amountFen: 100,
      notifyUrl,
      returnUrl: "http://x/back",
    });
    const redirect = await fetch(link, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(await (await fetch(redirect.headers.get("location")!)).text()).toContain("¥1.00");
    const tampered = link.replace("total_amount%22%3A%221.00", "total_amount%22%3A%220.01");
    expect(tampered).not.toBe(link);
    expect(await (await fetch(tampered, { redirect: "manual" })).text()).toContain("isv.invalid-signature");
  });

  it("the pay page refuses an unknown fault and an unknown order", async () => {
    const order = await wechatPay.order();
    expect((await pay(order.payUrl, { fault: "explode" })).status).toBe(400);
    expect((await fetch(`${simulatorUrl}/pay/${"0".repeat(32)}`)).status).toBe(404);
  });
});
