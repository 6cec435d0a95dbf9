import { randomUUID } from "node:crypto";
import { insecureChannel } from "@gateway/platform";
import { ConsoleServiceClient, PaymentProvider, TopUpOrderState } from "@gateway/proto/ledger/v1/console";
import { OperationsServiceClient } from "@gateway/proto/ledger/v1/operations";
import { queryRows, testClientOptions } from "@gateway/stack";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LedgerUnderTest, startLedger } from "./ledger-under-test.js";
import { type Promised, promisedClient } from "./promised-client.js";

let ledger: LedgerUnderTest;
let operationsClient: OperationsServiceClient;
let accountsClient: ConsoleServiceClient;
let operations: Promised<OperationsServiceClient>;
let accounts: Promised<ConsoleServiceClient>;

const operator = { accountId: randomUUID(), identity: "github:operator", role: "admin" };
const ops = {
  createBatch: (amountYuan: number, count: number, expiresAtMs = 0) =>
    operations.createCodeBatch({
      amountMicros: amountYuan * 1_000_000,
      count,
      expiresAtMs,
      note: "test",
      actor: operator,
    }),
  redeem: (accountId: string, code: string) => operations.redeemCode({ accountId, code }),
  revoke: (target: string) => operations.revokeCodes({ target, actor: operator }),
  codes: (batchId: string) => operations.listBatchCodes({ batchId }),
};

async function newAccount(name: string) {
  const answer = await accounts.findOrCreateAccountByIdentity({
    provider: "github",
    subject: `${name}-${randomUUID()}`,
    displayName: name,
  });
  return answer.account!.accountId;
}
const balanceOf = async (accountId: string) => (await accounts.getBalance({ accountId })).balanceMicros;
const auditOf = (targets: string[]) =>
  queryRows<{ action: string; actor_account_id: string | null; actor: string; actor_role: string }>(
    ledger.database.url,
    `SELECT action, actor_account_id, actor, actor_role, account_id, target, before, after
     FROM ledger.audit_log WHERE target = ANY($1) ORDER BY at, id`,
    [targets],
  );
const byOperator = { actor_account_id: operator.accountId, actor: "github:operator", actor_role: "admin" };

beforeAll(async () => {
  ledger = await startLedger();
  operationsClient = new OperationsServiceClient(ledger.grpcAddress, insecureChannel(), testClientOptions("console"));
  accountsClient = new ConsoleServiceClient(ledger.grpcAddress, insecureChannel(), testClientOptions("console"));
  operations = promisedClient(operationsClient);
  accounts = promisedClient(accountsClient);
}, 120_000);
afterAll(async () => {
  operationsClient?.close();
  accountsClient?.close();
  expect(await ledger?.cleanUp()).toEqual([0]);
});

describe("prepaid codes", () => {
  it("answers only the console", async () => {
    const edge = new OperationsServiceClient(ledger.grpcAddress, insecureChannel(), testClientOptions("edge"));
    await expect(promisedClient(edge).listCodeBatches({ limit: 1, cursor: "" })).rejects.toMatchObject({
      code: status.PERMISSION_DENIED,
    });
    edge.close();
  });

  it("credits a code exactly once when 50 sessions redeem it at the same moment", async () => {
    const { batch, codes } = await ops.createBatch(25, 1);
    expect(codes).toHaveLength(1);
    const accountIds = await Promise.all(Array.from({ length: 5 }, (_, index) => newAccount(`racer-${index}`)));
    const before = await Promise.all(accountIds.map(balanceOf));
    const attempts = await Promise.allSettled(
      Array.from({ length: 50 }, (_, attempt) => ops.redeem(accountIds[attempt % 5]!, codes[0]!)),
    );
    const won = attempts.filter((attempt) => attempt.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const lost of attempts.filter((attempt) => attempt.status === "rejected")) {
      expect((lost as PromiseRejectedResult).reason).toMatchObject({ code: status.NOT_FOUND });
    }
    const after = await Promise.all(accountIds.map(balanceOf));
    const gained = after.map((micros, index) => micros - before[index]!);
    expect([...gained].sort((a, b) => b - a)).toEqual([25_000_000, 0, 0, 0, 0]);
    const credits = await queryRows<{ count: string }>(
      ledger.database.url,
      "SELECT count(*)::text AS count FROM ledger.credits WHERE idempotency_key LIKE 'prepaid-code:%' AND account_id = ANY($1::uuid[])",
      [accountIds],
    );
    expect(credits[0]!.count).toBe("1");

    // The redemption is a paid order among the winner's top-ups, and the code says who used it.
    const winner = accountIds[gained.indexOf(25_000_000)]!;
    const { orders } = await accounts.listTopUpOrders({
      accountId: winner,
      limit: 10,
      cursor: "",
    });
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({
      provider: PaymentProvider.PAYMENT_PROVIDER_PREPAID_CODE,
      state: TopUpOrderState.TOP_UP_ORDER_STATE_PAID,
      amountMicros: 25_000_000,
    });
    const listed = await ops.codes(batch!.batchId);
    expect(listed.batch).toMatchObject({ redeemed: 1, revoked: 0 });
    expect(listed.codes[0]).toMatchObject({ state: "redeemed", redeemedBy: winner, outTradeNo: orders[0]!.outTradeNo });
  });

  it("accepts a code however it is typed, and refuses unknown, revoked and expired ones alike", async () => {
    const accountId = await newAccount("typist");
    const { batch, codes } = await ops.createBatch(3, 3);
    const [first, second, third] = codes as [string, string, string];
    const typed = ` ${first.toLowerCase().replace(/-/g, " ")} `;
    expect((await ops.redeem(accountId, typed)).balanceMicros).toBe(3_000_000);

    expect((await ops.revoke(second)).revokedCodeIds).toHaveLength(1);
    // The batch's remaining unused code; the used and the revoked one stay as they are.
    expect((await ops.revoke(batch!.batchId)).revokedCodeIds).toHaveLength(1);
    for (const code of [second, third, "GW-00000-00000-00000-00000-00000", "nonsense"]) {
      await expect(ops.redeem(accountId, code)).rejects.toMatchObject({ code: status.NOT_FOUND });
    }
    expect((await ops.codes(batch!.batchId)).codes.map((code) => code.state).sort()).toEqual([
      "redeemed",
      "revoked",
      "revoked",
    ]);
    // Each change audited with its operator: the batch made, then the codes unused before and revoked after.
    const [secondId] = (await ops.codes(batch!.batchId)).codes.filter((code) => code.codePrefix === second.slice(0, 8));
    expect(await auditOf([batch!.batchId, second.slice(0, 8)])).toEqual([
      expect.objectContaining({
        ...byOperator,
        action: "code.create",
        target: batch!.batchId,
        before: null,
        after: { amountMicros: "3000000", count: 3, expiresAt: null, note: "test" },
      }),
      expect.objectContaining({
        ...byOperator,
        action: "code.revoke",
        target: second.slice(0, 8),
        before: { unused: [secondId!.codeId] },
        after: { revoked: [secondId!.codeId] },
      }),
      expect.objectContaining({
        action: "code.revoke",
        target: batch!.batchId,
        after: { revoked: [expect.any(String)] },
      }),
    ]);
    expect(
      (await queryRows(ledger.database.url, "SELECT 1 FROM ledger.audit_log WHERE target = $1", [second])).length,
    ).toBe(0);

    const soon = await ops.createBatch(1, 1, Date.now() + 1_500);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    await expect(ops.redeem(accountId, soon.codes[0]!)).rejects.toMatchObject({ code: status.NOT_FOUND });
    expect((await ops.codes(soon.batch!.batchId)).codes[0]!.state).toBe("expired");
    expect(await balanceOf(accountId)).toBe(3_000_000);
  });

  it("keeps only the codes' hashes", async () => {
    const { batch, codes } = await ops.createBatch(1, 2);
    const rows = await queryRows<{ code_hash: string; code_prefix: string }>(
      ledger.database.url,
      "SELECT code_hash, code_prefix FROM ledger.prepaid_codes WHERE batch_id = $1",
      [batch!.batchId],
    );
    for (const row of rows) {
      expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(codes.some((code) => code.startsWith(row.code_prefix))).toBe(true);
      expect(codes).not.toContain(row.code_hash);
    }
  });

  it("refuses a change without a valid operator, and makes nothing", async () => {
    const before = await queryRows(ledger.database.url, "SELECT id FROM ledger.prepaid_code_batches");
    for (const actor of [undefined, { accountId: "", identity: "", role: "admin" }, { ...operator, role: "owner" }]) {
      await expect(
        operations.createCodeBatch({ amountMicros: 1_000_000, count: 1, expiresAtMs: 0, note: "", actor }),
      ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/actor/) });
    }
    await expect(operations.revokeCodes({ target: randomUUID(), actor: undefined })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    expect(await queryRows(ledger.database.url, "SELECT id FROM ledger.prepaid_code_batches")).toHaveLength(
      before.length,
    );
  });
});

describe("an operator's order check", () => {
  const placeOrder = async (accountId: string, amountFen = 300) =>
    accounts.createTopUpOrder({
      accountId,
      provider: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
      amountFen,
      merchantId: "m1",
      expiresInMs: 600_000,
    });

  it("audits a payment it records, with the order's state before and after, in the payment's transaction", async () => {
    const accountId = await newAccount("checked");
    const order = await placeOrder(accountId);
    const recorded = await accounts.recordPaymentNotification({
      provider: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
      headers: { source: "reconcile-query" },
      body: "{}",
      signatureVerified: true,
      facts: {
        outTradeNo: order.outTradeNo,
        amountFen: 300,
        currency: "CNY",
        merchantId: "m1",
        providerTradeId: `trade-${order.outTradeNo}`,
        tradeStatus: "TRADE_SUCCESS",
        paidAtMs: 0,
      },
      checkedBy: operator,
    });
    expect(recorded.order?.state).toBe(TopUpOrderState.TOP_UP_ORDER_STATE_PAID);
    expect(await auditOf([order.outTradeNo])).toEqual([
      expect.objectContaining({
        ...byOperator,
        action: "order.check",
        account_id: accountId,
        before: { state: "created" },
        after: { state: "paid", result: "recorded", outcome: "credited" },
      }),
    ]);
  });

  it("audits closing an order the provider never saw, and a check that changed nothing", async () => {
    const accountId = await newAccount("unseen");
    const unseen = await placeOrder(accountId);
    await accounts.closeTopUpOrder({
      outTradeNo: unseen.outTradeNo,
      state: TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED,
      checkedBy: operator,
    });
    const waiting = await placeOrder(accountId);
    const checked = await operations.recordOrderCheck({
      actor: operator,
      outTradeNo: waiting.outTradeNo,
      result: "waiting",
    });
    expect(checked.state).toBe(TopUpOrderState.TOP_UP_ORDER_STATE_CREATED);
    const checkOf = (target: string, after: object) =>
      expect.objectContaining({ ...byOperator, action: "order.check", target, before: { state: "created" }, after });
    expect(await auditOf([unseen.outTradeNo, waiting.outTradeNo])).toEqual([
      checkOf(unseen.outTradeNo, { state: "closed", result: "closed" }),
      checkOf(waiting.outTradeNo, { state: "created", result: "waiting" }),
    ]);
    // The reconcile job's own closing names no operator and is not an admin action.
    // Another amount: the same one would be the open `waiting` order again.
    const quiet = await placeOrder(accountId, 301);
    await accounts.closeTopUpOrder({ outTradeNo: quiet.outTradeNo, state: TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED });
    expect(await auditOf([quiet.outTradeNo])).toEqual([]);
    for (const result of ["guessed", "recorded"]) {
      await expect(
        operations.recordOrderCheck({ actor: operator, outTradeNo: waiting.outTradeNo, result }),
      ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    }
  });
});

describe("every account's orders", () => {
  it("filters by state, method, account and date, paging newest first", async () => {
    const accountId = await newAccount("orders");
    const start = Date.now();
    const placed = [];
    for (const provider of [PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY, PaymentProvider.PAYMENT_PROVIDER_ALIPAY]) {
      for (let index = 0; index < 3; index += 1) {
        placed.push(
          await accounts.createTopUpOrder({
            accountId,
            provider,
            amountFen: 100 + index,
            merchantId: "m1",
            expiresInMs: 600_000,
          }),
        );
      }
    }
    const { codes } = await ops.createBatch(2, 1);
    await ops.redeem(accountId, codes[0]!);
    const list = (filter: Partial<Parameters<typeof operations.listAllTopUpOrders>[0]>) =>
      operations.listAllTopUpOrders({
        limit: 0,
        cursor: "",
        state: 0,
        provider: 0,
        fromMs: 0,
        toMs: 0,
        accountId,
        ...filter,
      });
    expect((await list({})).orders).toHaveLength(7);
    expect(new Set((await list({})).orders.map((order) => order.accountName))).toEqual(new Set(["orders"]));
    const alipay = await list({ provider: PaymentProvider.PAYMENT_PROVIDER_ALIPAY });
    expect(alipay.orders.map((order) => order.outTradeNo)).toEqual(
      placed
        .slice(3)
        .reverse()
        .map((o) => o.outTradeNo),
    );
    const paid = await list({ state: TopUpOrderState.TOP_UP_ORDER_STATE_PAID });
    expect(paid.orders.map((order) => order.provider)).toEqual([PaymentProvider.PAYMENT_PROVIDER_PREPAID_CODE]);
    expect((await list({ state: TopUpOrderState.TOP_UP_ORDER_STATE_CREATED })).orders).toHaveLength(6);
    expect((await list({ toMs: start })).orders).toHaveLength(0);
    expect((await list({ fromMs: start, accountId: undefined })).orders.length).toBeGreaterThanOrEqual(7);

    const seen: string[] = [];
    let cursor = "";
    do {
      const page = await list({ limit: 2, cursor });
      expect(page.orders.length).toBeLessThanOrEqual(2);
      seen.push(...page.orders.map((order) => order.outTradeNo));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual((await list({})).orders.map((order) => order.outTradeNo));
    await expect(list({ cursor: "garbage" })).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });

    const found = await operations.findTopUpOrder({ outTradeNo: placed[0]!.outTradeNo });
    expect(found.accountId).toBe(accountId);
  });
});

describe("operations at a glance", () => {
  it("sums top-ups and spend per day, top accounts and models, and channel error rates", async () => {
    const accountId = await newAccount("spender");
    const keyId = randomUUID();
    const today = new Date().toISOString().slice(0, 10);
    await queryRows(
      ledger.database.url,
      `INSERT INTO ledger.daily_usage (account_id, day, model, requests, cost_micros)
       VALUES ($1, $2::date, 'glance-model', 4, 9000000000)`,
      [accountId, today],
    );
    for (const outcome of ["ok", "ok", "vendor_error", "client_cancelled"]) {
      await queryRows(
        ledger.database.url,
        `INSERT INTO ledger.usage_records (request_id, account_id, key_id, model, vendor, channel, endpoint,
           prompt_tokens, completion_tokens, total_tokens, estimated, outcome, cost_micros, latency_ms, stream, started_at)
         VALUES ($1, $2, $3, 'glance-model', 'v', 'glance-channel', 'chat', 1, 1, 2, false, $4, 1, 5, false, now())`,
        [randomUUID(), accountId, keyId, outcome],
      );
    }
    const { codes } = await ops.createBatch(7, 1);
    await ops.redeem(accountId, codes[0]!);
    const overview = await operations.getOverview({ fromDay: "", toDay: "", top: 0 });
    expect(overview.days).toHaveLength(30);
    expect(overview.toDay).toBe(today);
    const day = overview.days.at(-1)!;
    expect(day.spendMicros).toBeGreaterThanOrEqual(9_000_000_000);
    expect(day.topUpMicros).toBeGreaterThanOrEqual(7_000_000);
    expect(overview.topAccounts[0]).toMatchObject({ accountId, name: "spender", spendMicros: 9_000_000_000 });
    expect(overview.topModels[0]).toMatchObject({ model: "glance-model", requests: 4 });
    expect(overview.channels.find((channel) => channel.channel === "glance-channel")).toEqual({
      channel: "glance-channel",
      requests: 4,
      errors: 1,
    });
    await expect(operations.getOverview({ fromDay: "2026-02-01", toDay: "2026-01-01", top: 0 })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
  });
});
