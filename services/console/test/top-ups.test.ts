import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { queryRows, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, eventually, signInWithGithub } from "./browser.js";

const run = randomBytes(4).toString("hex");
let stack: TestStack;
let consoleUrl: string;
const buyer = new Browser();
const other = new Browser();

interface Delivery {
  provider: string;
  out_trade_no: string;
  fault: string | null;
  status: number | null;
  answer: string;
  accepted: boolean;
}

const balance = async () => (await buyer.api(`${consoleUrl}/api/session`)).body.account.balanceMicros as number;
const orderState = async (outTradeNo: string) =>
  (await buyer.api(`${consoleUrl}/api/topups/${outTradeNo}`)).body.order.state as string;
const deliveries = async (outTradeNo: string) => {
  const answer = (await (await fetch(`${stack.simulatorUrl}/_sim/payments/notifications`)).json()) as {
    data: Delivery[];
  };
  return answer.data.filter((delivery) => delivery.out_trade_no === outTradeNo);
};

/** The order's state once it is no longer `created` (or `created` after 20 s). */
const settledState = (outTradeNo: string) =>
  eventually(
    () => orderState(outTradeNo),
    (state) => state !== "created",
  );

async function createOrder(provider: "wechat" | "alipay", amountFen: number) {
  const created = await buyer.api(`${consoleUrl}/api/topups`, "POST", { provider, amountFen });
  expect(created.status).toBe(201);
  return created.body as {
    order: { outTradeNo: string; state: string; amountFen: number };
    payment: { qrCode: string; payUrl?: string };
  };
}

/** Presses the pay page's button, as the buyer's phone would, optionally with a simulated fault. */
async function pay(qrCode: string, fields: Record<string, string> = {}) {
  const response = await fetch(qrCode, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  stack = await startTestStack({
    console: true,
    echo: process.env.DEBUG_CONSOLE ? true : undefined,
    serviceEnv: {
      // Orders a fault left unpaid stay open here; this file makes more than the default cap of 10.
      ledger: { LEDGER_MAX_OPEN_TOPUPS_PER_ACCOUNT: "50" },
      console: {
        CONSOLE_RECONCILE_INTERVAL_MS: "300",
        // Later than a notification normally takes, so the notify path is what most tests see.
        CONSOLE_RECONCILE_AFTER_MS: "1500",
      },
    },
  });
  consoleUrl = stack.consoleUrl!;
  await signInWithGithub(buyer, consoleUrl, `buyer-${run}`);
  await signInWithGithub(other, consoleUrl, `other-${run}`);
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
});

describe("console top-ups through the simulated providers", () => {
  it("tops up 1 yuan with WeChat Pay Native: QR code, pay page, notification, balance credited once", async () => {
    const before = await balance();
    const { order, payment } = await createOrder("wechat", 100);
    expect(order).toMatchObject({ state: "created", amountFen: 100, provider: "wechat" });
    expect(payment.qrCode.startsWith(`${stack.simulatorUrl}/pay/`)).toBe(true);
    const page = await (await fetch(payment.qrCode)).text();
    expect(page).toContain("¥1.00");
    await pay(payment.qrCode);
    expect(await settledState(order.outTradeNo)).toBe("paid");
    expect(await balance()).toBe(before + 1_000_000);
    const listed = await buyer.api(`${consoleUrl}/api/topups`);
    expect(listed.body.orders[0]).toMatchObject({ outTradeNo: order.outTradeNo, state: "paid" });
    expect(listed.body.orders[0].finishedAt).toBeTruthy();
    expect((await other.api(`${consoleUrl}/api/topups/${order.outTradeNo}`)).status).toBe(404);
  });

  it("tops up 5 yuan with Alipay precreate, with a page-pay link too", async () => {
    const before = await balance();
    const { order, payment } = await createOrder("alipay", 500);
    expect(payment.payUrl).toContain("alipay.trade.page.pay");
    await pay(payment.qrCode);
    expect(await settledState(order.outTradeNo)).toBe("paid");
    expect(await balance()).toBe(before + 5_000_000);
  });

  it.each(["wechat", "alipay"] as const)(
    "credits once for 50 simultaneous copies of a %s notification",
    async (provider) => {
      const copiesSent = 50;
      const before = await balance();
      const { order, payment } = await createOrder(provider, 300);
      await pay(payment.qrCode, { fault: "duplicate", count: String(copiesSent) });
      const copies = await eventually(
        () => deliveries(order.outTradeNo),
        (list) => list.length === copiesSent,
      );
      expect(copies.every((delivery) => delivery.accepted)).toBe(true);
      expect(await orderState(order.outTradeNo)).toBe("paid");
      expect(await balance()).toBe(before + 3_000_000);
    },
  );

  it.each([
    ["wechat", "forged"],
    ["alipay", "forged"],
    ["wechat", "wrong_amount"],
    ["alipay", "wrong_amount"],
    ["wechat", "other_merchant"],
    ["alipay", "other_merchant"],
  ] as const)("never credits a %s notification that is %s", async (provider, fault) => {
    const before = await balance();
    // An amount of its own: an order left open with the same amount and method would be offered again.
    const { order, payment } = await createOrder(provider, 200 + fault.length);
    await pay(payment.qrCode, { fault });
    const [delivery] = await eventually(
      () => deliveries(order.outTradeNo),
      (list) => list.length > 0,
    );
    // A forgery is refused (the provider would retry); a genuine but wrong message is stored and not retried.
    expect(delivery!.accepted).toBe(fault !== "forged");
    // The reconcile job's query also runs meanwhile: the provider says the order is unpaid.
    await sleep(2_500);
    expect(await orderState(order.outTradeNo)).toBe("created");
    expect(await balance()).toBe(before);
  });

  it("credits a late notification once, and a replayed WeChat Pay capture changes nothing", async () => {
    const before = await balance();
    const late = await createOrder("alipay", 100);
    await pay(late.payment.qrCode, { fault: "late", delay_ms: "1000" });
    const replayed = await createOrder("wechat", 100);
    await pay(replayed.payment.qrCode, { fault: "replayed", delay_ms: "500" });
    const replays = await eventually(
      () => deliveries(replayed.order.outTradeNo),
      (list) => list.some((delivery) => delivery.fault === "replayed"),
    );
    expect(replays.find((delivery) => delivery.fault === "replayed")!.accepted).toBe(false);
    expect(await settledState(late.order.outTradeNo)).toBe("paid");
    expect(await orderState(replayed.order.outTradeNo)).toBe("paid");
    expect(await balance()).toBe(before + 2_000_000);
  });

  it("finds a payment whose notification was lost: the reconcile job asks the provider and credits once", async () => {
    const before = await balance();
    const { order, payment } = await createOrder("wechat", 700);
    // Paid at the provider, its notification held back for ten minutes: lost, as far as this test goes.
    await pay(payment.qrCode, { fault: "late", delay_ms: "600000" });
    expect(await settledState(order.outTradeNo)).toBe("paid");
    expect(await deliveries(order.outTradeNo)).toEqual([]);
    expect(await balance()).toBe(before + 7_000_000);
  });

  it.each(["wechat", "alipay"] as const)(
    "offers a %s order awaiting payment again: a second Pay and its row get its code, paying it credits once",
    async (provider) => {
      const before = await balance();
      const first = await createOrder(provider, 1_100);
      const again = await createOrder(provider, 1_100);
      expect(again.order.outTradeNo).toBe(first.order.outTradeNo);
      expect(again.payment.qrCode).toBe(first.payment.qrCode);
      const otherAmount = await createOrder(provider, 1_200);
      expect(otherAmount.order.outTradeNo).not.toBe(first.order.outTradeNo);

      const resumed = await buyer.api(`${consoleUrl}/api/topups/${first.order.outTradeNo}/payment`, "POST");
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ order: { outTradeNo: first.order.outTradeNo, state: "created" } });
      expect(resumed.body.payment.qrCode).toBe(first.payment.qrCode);
      if (provider === "alipay") expect(resumed.body.payment.payUrl).toContain("alipay.trade.page.pay");
      expect((await other.api(`${consoleUrl}/api/topups/${first.order.outTradeNo}/payment`, "POST")).status).toBe(404);

      await pay(resumed.body.payment.qrCode);
      expect(await settledState(first.order.outTradeNo)).toBe("paid");
      expect(await balance()).toBe(before + 11_000_000);
      const paidAgain = await buyer.api(`${consoleUrl}/api/topups/${first.order.outTradeNo}/payment`, "POST");
      expect(paidAgain).toMatchObject({ status: 409, body: { error: { code: "order_not_payable" } } });
      expect((await createOrder(provider, 1_100)).order.outTradeNo).not.toBe(first.order.outTradeNo);
    },
  );

  it("gives a new order once the provider took the open one's money before ledger heard of it", async () => {
    const before = await balance();
    const first = await createOrder("wechat", 1_300);
    // Paid at the provider, its notification held back: ledger still has the order open.
    await pay(first.payment.qrCode, { fault: "late", delay_ms: "600000" });
    const refused = await buyer.api(`${consoleUrl}/api/topups`, "POST", { provider: "wechat", amountFen: 1_300 });
    // Either the reconcile job found the payment first (a new order) or the provider refused the repeat.
    if (refused.status === 201) expect(refused.body.order.outTradeNo).not.toBe(first.order.outTradeNo);
    else expect(refused.status).toBe(502);
    expect(await orderState(first.order.outTradeNo)).toBe("paid");
    expect(await balance()).toBe(before + 13_000_000);
    expect((await createOrder("wechat", 1_300)).order.outTradeNo).not.toBe(first.order.outTradeNo);
  });

  it("refuses orders under 1 yuan and answers forged notifications in each provider's terms", async () => {
    expect((await buyer.api(`${consoleUrl}/api/topups`, "POST", { provider: "wechat", amountFen: 99 })).status).toBe(
      400,
    );
    expect((await buyer.api(`${consoleUrl}/api/topups`, "POST", { provider: "paypal", amountFen: 100 })).status).toBe(
      400,
    );
    const wechat = await fetch(`${consoleUrl}/api/payments/wechat/notify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "x", event_type: "TRANSACTION.SUCCESS" }),
    });
    expect(wechat.status).toBe(401);
    expect(await wechat.json()).toEqual({ code: "FAIL", message: "失败" });
    const alipay = await fetch(`${consoleUrl}/api/payments/alipay/notify`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "out_trade_no=tu0&trade_status=TRADE_SUCCESS&total_amount=100.00&sign=AAAA",
    });
    expect(await alipay.text()).toBe("fail");
  });
});

describe("notifications from anyone", () => {
  const storedNotifications = async () =>
    Number(
      (await queryRows<{ count: string }>(stack.databaseUrl, "SELECT count(*) FROM ledger.payment_notifications"))[0]!
        .count,
    );

  it("stores nothing of a notification whose signature does not verify, however many and large", async () => {
    const before = await storedNotifications();
    const junk = "x".repeat(60_000);
    for (let post = 0; post < 20; post += 1) {
      const [wechat, alipay] = await Promise.all([
        fetch(`${consoleUrl}/api/payments/wechat/notify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ id: `junk-${post}`, event_type: "TRANSACTION.SUCCESS", junk }),
        }),
        fetch(`${consoleUrl}/api/payments/alipay/notify`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `out_trade_no=tu${post}&trade_status=TRADE_SUCCESS&total_amount=1.00&sign=AAAA&junk=${junk}`,
        }),
      ]);
      expect(wechat.status).toBe(401);
      expect(await alipay.text()).toBe("fail");
    }
    expect(await storedNotifications()).toBe(before);
  });
});
