import { queryRows } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adjustCredit } from "../src/accounts/adjust-credit.js";
import type { TopUpOrder } from "../src/generated/prisma/client.js";
import { createTopUpOrder } from "../src/topups/create-top-up-order.js";
import {
  closeExpiredTopUpOrders,
  closeTopUpOrder,
  listStaleTopUpOrders,
} from "../src/topups/reconcile-top-up-orders.js";
import {
  type PaymentFacts,
  type ReceivedNotification,
  recordPaymentNotification,
} from "../src/topups/record-payment-notification.js";
import { type MigratedDatabase, openMigratedDatabase } from "./migrated-database.js";

let migrated: MigratedDatabase;
beforeAll(async () => {
  migrated = await openMigratedDatabase();
});
afterAll(() => migrated?.close());

const sql = <Row = Record<string, unknown>>(text: string, params: unknown[] = []) =>
  queryRows<Row>(migrated.database.url, text, params);

const MERCHANT = "1900000109";
const HOUR_MS = 3_600_000;

async function openOrder(options: { provider?: "wechat_pay" | "alipay"; fen?: bigint; createdAt?: Date } = {}) {
  const account = await migrated.prisma.account.create({ data: { name: "payer" } });
  const order = await createTopUpOrder(
    migrated.prisma,
    {
      accountId: account.id,
      provider: options.provider ?? "wechat_pay",
      amountFen: options.fen ?? 100n,
      merchantId: MERCHANT,
      expiresInMs: HOUR_MS / 2,
    },
    10,
    options.createdAt,
  );
  return { account, order };
}

const paidFacts = (order: TopUpOrder, changes: Partial<PaymentFacts> = {}): PaymentFacts => ({
  outTradeNo: order.outTradeNo,
  amountFen: order.amountMicros / 10_000n,
  currency: "CNY",
  merchantId: MERCHANT,
  providerTradeId: `4200${order.outTradeNo.slice(2, 20)}`,
  tradeStatus: order.provider === "alipay" ? "TRADE_SUCCESS" : "SUCCESS",
  ...changes,
});

const notify = (order: TopUpOrder, facts: PaymentFacts | undefined, changes: Partial<ReceivedNotification> = {}) =>
  recordPaymentNotification(migrated.prisma, {
    provider: order.provider as "wechat_pay" | "alipay",
    headers: { "wechatpay-signature": "c2lnbmF0dXJl", "wechatpay-serial": "5157F09EFDC096DE15EBE81A47057A72" },
    body: JSON.stringify({ id: "EV-2018022511223320873", resource: { ciphertext: "…" } }),
    signatureVerified: true,
    facts,
    ...changes,
  });

const balanceOf = async (accountId: string) =>
  (await migrated.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicros;

const stateOf = async (order: TopUpOrder) =>
  (await migrated.prisma.topUpOrder.findUniqueOrThrow({ where: { id: order.id } })).state;

describe("top-up orders in the database", () => {
  it("refuse every transition but created → paid | closed | failed, in SQL", async () => {
    const { account, order } = await openOrder();
    const update = (set: string, id = order.id) => sql(`UPDATE ledger.topup_orders SET ${set} WHERE id = $1`, [id]);

    // Born paid, with everything paid needs: still refused.
    await expect(
      sql(
        `WITH credit AS (
           INSERT INTO ledger.credits (account_id, amount_micros, idempotency_key) VALUES ($1, 1000000, 'forged')
           RETURNING id)
         INSERT INTO ledger.topup_orders (out_trade_no, account_id, provider, merchant_id, amount_micros, state,
           expires_at, finished_at, provider_trade_id, credit_id)
         SELECT 'tuforgedpaid01', $1, 'alipay', 'm', 1000000, 'paid', now() + interval '1 hour', now(), 't', id
         FROM credit`,
        [account.id],
      ),
    ).rejects.toThrow(/created in state created/);
    await expect(
      sql(
        `INSERT INTO ledger.topup_orders (out_trade_no, account_id, provider, merchant_id, amount_micros, expires_at)
         VALUES ('tubadamount01', $1, 'alipay', 'm', 999999, now() + interval '1 hour')`,
        [account.id],
      ),
    ).rejects.toThrow(/amount_micros/);
    await expect(update("state = 'refunded', finished_at = now()")).rejects.toThrow(/state_check/);
    // Paid needs the provider's trade id and the credit that carries the money.
    await expect(update("state = 'paid', finished_at = now()")).rejects.toThrow(/check/);
    await expect(update("amount_micros = 100000000")).rejects.toThrow(/may only change state/);

    await update("state = 'closed', finished_at = now()");
    await expect(update("state = 'created', finished_at = NULL")).rejects.toThrow(/final state/);
    await expect(update("state = 'failed'")).rejects.toThrow(/final state/);
    await expect(sql("DELETE FROM ledger.topup_orders WHERE id = $1", [order.id])).rejects.toThrow(/never deleted/);
    // The guarded update the code uses changes nothing once the order is final.
    const guarded = await sql(
      "UPDATE ledger.topup_orders SET state = 'paid' WHERE id = $1 AND state = 'created' RETURNING id",
      [order.id],
    );
    expect(guarded).toEqual([]);
    expect(await stateOf(order)).toBe("closed");

    const paid = await openOrder();
    expect((await notify(paid.order, paidFacts(paid.order))).outcome).toBe("credited");
    await expect(update("state = 'closed'", paid.order.id)).rejects.toThrow(/final state/);
    await expect(update("provider_trade_id = 'another'", paid.order.id)).rejects.toThrow(/final state/);
  });

  it("credit a verified payment once, with the order's paid state in the same commit", async () => {
    const { account, order } = await openOrder({ fen: 1_234n });
    const first = await notify(order, paidFacts(order));
    expect(first).toMatchObject({ outcome: "credited", order: { state: "paid", providerTradeId: expect.any(String) } });
    expect(first.balance).toEqual({ micros: 12_340_000n, version: 1n });
    expect(await balanceOf(account.id)).toBe(12_340_000n);
    const [credit] = await sql<{ id: string; idempotency_key: string }>(
      "SELECT c.id, c.idempotency_key FROM ledger.credits c JOIN ledger.topup_orders o ON o.credit_id = c.id WHERE o.id = $1",
      [order.id],
    );
    expect(credit?.idempotency_key).toBe(`topup:${order.outTradeNo}`);

    for (const replay of [paidFacts(order), paidFacts(order, { paidAt: new Date() })]) {
      expect((await notify(order, replay)).outcome).toBe("duplicate");
    }
    // The same order number paid by another trade is not a duplicate: stored, never credited.
    expect(await notify(order, paidFacts(order, { providerTradeId: "4200another" }))).toMatchObject({
      outcome: "rejected",
      reason: "order already paid by another trade or notification",
    });
    expect(await balanceOf(account.id)).toBe(12_340_000n);
    const stored = await sql<{ outcome: string }>(
      "SELECT outcome FROM ledger.payment_notifications WHERE order_id = $1 ORDER BY received_at, outcome",
      [order.id],
    );
    expect(stored.map((row) => row.outcome).sort()).toEqual(["credited", "duplicate", "duplicate", "rejected"]);
  });

  it("treat Alipay's TRADE_FINISHED after TRADE_SUCCESS as the same payment", async () => {
    const { account, order } = await openOrder({ provider: "alipay", fen: 500n });
    expect((await notify(order, paidFacts(order))).outcome).toBe("credited");
    expect((await notify(order, paidFacts(order, { tradeStatus: "TRADE_FINISHED" }))).outcome).toBe("duplicate");
    expect(await balanceOf(account.id)).toBe(5_000_000n);
  });

  it("store wrong amounts, other merchants, providers, currencies, unknown orders and unverified ones as rejected, crediting nothing", async () => {
    const { account, order } = await openOrder({ fen: 100n });
    const cases: Array<[Promise<Awaited<ReturnType<typeof notify>>>, string]> = [
      [notify(order, paidFacts(order, { amountFen: 1n })), "amount does not match the order"],
      [notify(order, paidFacts(order, { amountFen: 10_000n })), "amount does not match the order"],
      [notify(order, paidFacts(order, { merchantId: "1900000999" })), "merchant or app id does not match the order"],
      [notify(order, paidFacts(order, { currency: "USD" })), "currency does not match the order"],
      [notify(order, paidFacts(order), { provider: "alipay" }), "order is for wechat_pay"],
      [notify(order, paidFacts(order, { outTradeNo: "tu0000000000000000000000000000" })), "unknown order"],
      [notify(order, paidFacts(order), { signatureVerified: false }), "signature not verified"],
      [notify(order, undefined, { signatureVerified: false }), "no verified facts"],
      [notify(order, paidFacts(order, { tradeStatus: "REFUND" })), "trade status REFUND changes nothing"],
    ];
    for (const [answer, reason] of cases) expect(await answer).toMatchObject({ outcome: "rejected", reason });
    expect(await balanceOf(account.id)).toBe(0n);
    expect(await stateOf(order)).toBe("created");
    // Those naming our order are kept with it; the unknown order's and the unreadable one without.
    const kept = await sql<{ count: string }>(
      "SELECT count(*) FROM ledger.payment_notifications WHERE order_id = $1 AND outcome = 'rejected'",
      [order.id],
    );
    expect(Number(kept[0]?.count)).toBe(cases.length - 2);
    // Every one is kept as received: headers and body verbatim.
    const [raw] = await sql<{ headers: Record<string, string>; body: string; facts: unknown }>(
      "SELECT headers, body, facts FROM ledger.payment_notifications WHERE order_id = $1 AND reason = 'amount does not match the order' LIMIT 1",
      [order.id],
    );
    expect(raw?.headers["wechatpay-serial"]).toBe("5157F09EFDC096DE15EBE81A47057A72");
    expect(raw?.body).toContain("EV-2018022511223320873");
    expect(raw?.facts).toMatchObject({ out_trade_no: order.outTradeNo, merchant_id: MERCHANT });
    // The right notification still pays it afterwards.
    expect((await notify(order, paidFacts(order))).outcome).toBe("credited");
  });

  it("never credit a closed order, nor an expired one unless the provider took the money before it expired", async () => {
    const closed = await openOrder();
    await closeTopUpOrder(migrated.prisma, closed.order.outTradeNo, "closed");
    expect(await notify(closed.order, paidFacts(closed.order))).toMatchObject({
      outcome: "rejected",
      reason: "order is closed",
    });

    const twoHoursAgo = new Date(Date.now() - 2 * HOUR_MS);
    const expired = await openOrder({ createdAt: twoHoursAgo });
    expect(await notify(expired.order, paidFacts(expired.order))).toMatchObject({
      outcome: "rejected",
      reason: "order expired",
    });
    const afterExpiry = new Date(expired.order.expiresAt.getTime() + 1);
    expect((await notify(expired.order, paidFacts(expired.order, { paidAt: afterExpiry }))).outcome).toBe("rejected");
    expect(await balanceOf(expired.account.id)).toBe(0n);

    // A payment taken in time whose notification was lost, found later by the reconcile job's query.
    const late = await openOrder({ createdAt: twoHoursAgo });
    const inTime = new Date(late.order.expiresAt.getTime() - 60_000);
    expect((await notify(late.order, paidFacts(late.order, { paidAt: inTime }))).outcome).toBe("credited");
    expect(await balanceOf(late.account.id)).toBe(1_000_000n);

    for (const { account } of [closed, expired]) expect(await balanceOf(account.id)).toBe(0n);
  });

  it("let the provider close or fail an open order, and keep pending ones open", async () => {
    const { order } = await openOrder();
    expect((await notify(order, paidFacts(order, { tradeStatus: "NOTPAY" }))).outcome).toBe("pending");
    expect(await stateOf(order)).toBe("created");
    expect((await notify(order, paidFacts(order, { tradeStatus: "PAYERROR" }))).outcome).toBe("closed");
    expect(await stateOf(order)).toBe("failed");
    await expect(closeTopUpOrder(migrated.prisma, order.outTradeNo, "closed")).rejects.toMatchObject({
      httpStatus: 409,
    });
    expect((await closeTopUpOrder(migrated.prisma, order.outTradeNo, "failed")).state).toBe("failed");
  });

  it("list orders left open for the reconcile job and close expired ones after the grace period", async () => {
    const now = new Date();
    const old = await openOrder({ createdAt: new Date(now.getTime() - 2 * HOUR_MS) });
    const recent = await openOrder({ createdAt: new Date(now.getTime() - 10 * 60_000) });
    const fresh = await openOrder();
    const stale = await listStaleTopUpOrders(migrated.prisma, 5 * 60_000, 500);
    const staleNumbers = stale.map((order) => order.outTradeNo);
    expect(staleNumbers).toEqual(expect.arrayContaining([old.order.outTradeNo, recent.order.outTradeNo]));
    expect(staleNumbers).not.toContain(fresh.order.outTradeNo);
    expect(stale.every((order) => order.state === "created")).toBe(true);

    // `old` expired 90 minutes ago, `recent` has 20 minutes left.
    expect(await closeExpiredTopUpOrders(migrated.prisma, 2 * HOUR_MS)).not.toContain(old.order.outTradeNo);
    const closed = await closeExpiredTopUpOrders(migrated.prisma, 10 * 60_000);
    expect(closed).toContain(old.order.outTradeNo);
    expect(closed).not.toContain(recent.order.outTradeNo);
    expect(await stateOf(old.order)).toBe("closed");
    expect(await stateOf(recent.order)).toBe("created");
  });
});

describe("a second Pay", () => {
  it("gets the open order of the same amount and method, a new one otherwise, within the cap", async () => {
    const account = await migrated.prisma.account.create({ data: { name: "twice" } });
    const order = (
      changes: { provider?: "wechat_pay" | "alipay"; amountFen?: bigint; merchantId?: string } = {},
      now = new Date(),
    ) =>
      createTopUpOrder(
        migrated.prisma,
        {
          accountId: account.id,
          provider: "wechat_pay",
          amountFen: 500n,
          merchantId: MERCHANT,
          expiresInMs: HOUR_MS / 2,
          ...changes,
        },
        3,
        now,
      );
    const first = await order();
    expect((await order()).outTradeNo).toBe(first.outTradeNo);
    const alipay = await order({ provider: "alipay" });
    const other = await order({ amountFen: 600n });
    expect(new Set([first.outTradeNo, alipay.outTradeNo, other.outTradeNo]).size).toBe(3);
    // At the cap, the same amount and method still get their open order; anything else is refused.
    expect((await order()).outTradeNo).toBe(first.outTradeNo);
    await expect(order({ merchantId: "1900000110" })).rejects.toMatchObject({ httpStatus: 429 });
    // With under five minutes left it would expire in the buyer's hands: not offered again.
    await expect(order({}, new Date(first.expiresAt.getTime() - 4 * 60_000))).rejects.toMatchObject({
      httpStatus: 429,
    });
    await closeTopUpOrder(migrated.prisma, first.outTradeNo, "closed");
    const fresh = await order();
    expect(fresh.outTradeNo).not.toBe(first.outTradeNo);
    expect(await sql("SELECT 1 FROM ledger.topup_orders WHERE account_id = $1", [account.id])).toHaveLength(4);
  });
});

describe("credit adjustments", () => {
  it("change the balance once per idempotency key, audited, and never below zero", async () => {
    const account = await migrated.prisma.account.create({ data: { name: "adjusted" } });
    const actor = { identity: "github:42", role: "support" as const };
    const input = { accountId: account.id, reason: "goodwill", actor, idempotencyKey: "adj-1" };
    const first = await adjustCredit(migrated.prisma, { ...input, amountMicros: 3_000_000n });
    expect(first).toMatchObject({ replayed: false, balance: { micros: 3_000_000n } });
    expect((await adjustCredit(migrated.prisma, { ...input, amountMicros: 3_000_000n })).replayed).toBe(true);
    await expect(
      adjustCredit(migrated.prisma, { ...input, idempotencyKey: "adj-2", amountMicros: -5_000_000n }),
    ).rejects.toMatchObject({ httpStatus: 400, code: "balance_below_zero" });
    const back = await adjustCredit(migrated.prisma, { ...input, idempotencyKey: "adj-3", amountMicros: -1_000_000n });
    expect(back.balance.micros).toBe(2_000_000n);
    const audit = await sql<{ amount_micros: string; reason: string; actor: string }>(
      "SELECT amount_micros, reason, actor FROM ledger.credit_adjustments WHERE account_id = $1 ORDER BY created_at",
      [account.id],
    );
    expect(audit).toEqual([
      { amount_micros: "3000000", reason: "goodwill", actor: "github:42" },
      { amount_micros: "-1000000", reason: "goodwill", actor: "github:42" },
    ]);
  });
});
