import { randomUUID } from "node:crypto";
import { billingKeys } from "@gateway/billing";
import { callUnary, insecureChannel, natsNames, type ServiceName } from "@gateway/platform";
import { KeyRevoked } from "@gateway/proto/events/v1/events";
import {
  ConsoleServiceClient,
  NotificationOutcome,
  PaymentProvider,
  type RecordPaymentNotificationRequest,
  type TopUpOrder,
  TopUpOrderState,
} from "@gateway/proto/ledger/v1/console";
import { queryRows, testClientOptions, testServers } from "@gateway/stack";
import { status } from "@grpc/grpc-js";
import { connect } from "nats";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LedgerUnderTest, startLedger } from "./ledger-under-test.js";
import { type Promised, promisedClient } from "./promised-client.js";

let ledger: LedgerUnderTest;
let asConsole: ConsoleServiceClient;

let call: Promised<ConsoleServiceClient>;
const clientAs = (service?: ServiceName) =>
  new ConsoleServiceClient(ledger.grpcAddress, insecureChannel(), service ? testClientOptions(service) : {});

beforeAll(async () => {
  ledger = await startLedger();
  asConsole = clientAs("console");
  call = promisedClient(asConsole, 20_000);
});
afterAll(async () => {
  asConsole?.close();
  expect(await ledger?.cleanUp()).toEqual([0]);
});

const MERCHANT = "2021000000000001";

const signIn = (provider: string, subject: string, displayName?: string) =>
  call.findOrCreateAccountByIdentity({ provider, subject, displayName, email: undefined });

const paidNotification = (order: TopUpOrder, changes: Partial<RecordPaymentNotificationRequest> = {}) => ({
  provider: order.provider,
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: `out_trade_no=${order.outTradeNo}&trade_status=TRADE_SUCCESS&total_amount=${order.amountFen / 100}`,
  signatureVerified: true,
  facts: {
    outTradeNo: order.outTradeNo,
    amountFen: order.amountFen,
    currency: "CNY",
    merchantId: MERCHANT,
    providerTradeId: `2026${order.outTradeNo}`,
    tradeStatus: "TRADE_SUCCESS",
    paidAtMs: 0,
  },
  ...changes,
});

describe("ConsoleService", () => {
  it("answers only the console: other services are refused, callers without a token too", async () => {
    for (const service of ["edge", "router", "video", "tools"] as const) {
      const client = clientAs(service);
      try {
        await expect(
          callUnary(client.getBalance.bind(client), { accountId: randomUUID() }, 5_000),
        ).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
      } finally {
        client.close();
      }
    }
    const anonymous = clientAs();
    try {
      await expect(
        callUnary(anonymous.listAccounts.bind(anonymous), { limit: 1, cursor: "" }, 5_000),
      ).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    } finally {
      anonymous.close();
    }
  });

  it("creates an account at the first sign-in, reaches it again, links a second provider and refuses a taken one", async () => {
    const subject = randomUUID();
    const first = await signIn("github", subject, "Ada");
    expect(first).toMatchObject({ created: true, account: { name: "Ada", balanceMicros: 0 } });
    const again = await signIn("github", subject, "Ada L.");
    expect(again).toMatchObject({ created: false, account: { accountId: first.account?.accountId } });
    const accountId = first.account!.accountId;

    const linked = await call.linkIdentity({ accountId, provider: "oidc:google", subject: `g-${subject}` });
    expect(linked).toMatchObject({ accountId, provider: "oidc:google" });
    expect((await signIn("oidc:google", `g-${subject}`)).account?.accountId).toBe(accountId);
    // Linking again is harmless.
    await call.linkIdentity({ accountId, provider: "oidc:google", subject: `g-${subject}` });

    const other = await signIn("github", randomUUID(), "Grace");
    await expect(
      call.linkIdentity({ accountId: other.account!.accountId, provider: "github", subject }),
    ).rejects.toMatchObject({ code: status.FAILED_PRECONDITION, details: expect.stringMatching(/another account/) });
    const identities = await call.listIdentities({ accountId });
    expect(identities.identities.map(({ provider }) => provider)).toEqual(["github", "oidc:google"]);

    await expect(signIn("GitHub!", "x")).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
    await expect(call.listIdentities({ accountId: "not-a-uuid" })).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it("makes one account when the same first sign-in arrives twenty times at once", async () => {
    const subject = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => signIn("github", subject)));
    expect(new Set(answers.map((answer) => answer.account?.accountId)).size).toBe(1);
    expect(answers.filter((answer) => answer.created)).toHaveLength(1);
  });

  it("credits 50 concurrent copies of one payment notification once, and updates router's balance copy", async () => {
    const { account } = await signIn("github", randomUUID(), "payer");
    const accountId = account!.accountId;
    const order = await call.createTopUpOrder({
      accountId,
      provider: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
      amountFen: 500,
      merchantId: MERCHANT,
      expiresInMs: 0,
    });
    expect(order).toMatchObject({
      state: TopUpOrderState.TOP_UP_ORDER_STATE_CREATED,
      amountFen: 500,
      amountMicros: 5_000_000,
      currency: "CNY",
    });
    expect(order.outTradeNo).toMatch(/^[A-Za-z0-9]{1,32}$/);
    expect(order.expiresAtMs - order.createdAtMs).toBe(30 * 60_000);

    const answers = await Promise.all(
      Array.from({ length: 50 }, () => call.recordPaymentNotification(paidNotification(order))),
    );
    const outcomes = answers.map((answer) => answer.outcome);
    expect(outcomes.filter((outcome) => outcome === NotificationOutcome.NOTIFICATION_OUTCOME_CREDITED)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === NotificationOutcome.NOTIFICATION_OUTCOME_DUPLICATE)).toHaveLength(
      49,
    );
    expect((await call.getBalance({ accountId })).balanceMicros).toBe(5_000_000);
    expect((await call.getTopUpOrder({ accountId, outTradeNo: order.outTradeNo })).state).toBe(
      TopUpOrderState.TOP_UP_ORDER_STATE_PAID,
    );
    const [counts] = await queryRows<{ credits: string; notifications: string }>(
      ledger.database.url,
      `SELECT (SELECT count(*) FROM ledger.credits WHERE account_id = $1) AS credits,
              (SELECT count(*) FROM ledger.payment_notifications n JOIN ledger.topup_orders o ON o.id = n.order_id
                WHERE o.account_id = $1) AS notifications`,
      [accountId],
    );
    expect(counts).toEqual({ credits: "1", notifications: "50" });

    const redis = createClient({ url: testServers.redisUrl });
    await redis.connect();
    try {
      expect(await redis.get(billingKeys(ledger.namespace, accountId).balance)).toBe("5000000");
    } finally {
      redis.destroy();
    }

    const wrong = await call.recordPaymentNotification(
      paidNotification(order, { facts: { ...paidNotification(order).facts, amountFen: 1 } }),
    );
    expect(wrong).toMatchObject({ outcome: NotificationOutcome.NOTIFICATION_OUTCOME_REJECTED });
    await expect(
      call.createTopUpOrder({
        accountId,
        provider: PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY,
        amountFen: 99,
        merchantId: MERCHANT,
        expiresInMs: 0,
      }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/amountFen/) });
  });

  it("closes orders through the reconcile calls", async () => {
    const { account } = await signIn("github", randomUUID());
    const order = await call.createTopUpOrder({
      accountId: account!.accountId,
      provider: PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY,
      amountFen: 100,
      merchantId: MERCHANT,
      expiresInMs: 60_000,
    });
    const stale = await call.listStaleTopUpOrders({ olderThanMs: 0, limit: 500 });
    expect(stale.orders.map((listed) => listed.outTradeNo)).toContain(order.outTradeNo);
    const closed = await call.closeTopUpOrder({
      outTradeNo: order.outTradeNo,
      state: TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED,
    });
    expect(closed.state).toBe(TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED);
    const late = await call.recordPaymentNotification({
      ...paidNotification(order),
      facts: { ...paidNotification(order).facts, tradeStatus: "SUCCESS" },
    });
    expect(late).toMatchObject({
      outcome: NotificationOutcome.NOTIFICATION_OUTCOME_REJECTED,
      reason: "order is closed",
    });
    expect((await call.getBalance({ accountId: account!.accountId })).balanceMicros).toBe(0);
    expect((await call.closeExpiredTopUpOrders({ graceMs: 0 })).closedOutTradeNos).not.toContain(order.outTradeNo);
  });

  it("keeps each account's keys, usage, logs and orders from every other account", async () => {
    const alice = (await signIn("github", randomUUID(), "alice")).account!.accountId;
    const bob = (await signIn("github", randomUUID(), "bob")).account!.accountId;
    const created = await call.createKey({
      accountId: alice,
      name: "laptop",
      group: "default",
      expiresAtMs: 0,
      spendCapMicros: 2_000_000,
      readLogs: true,
    });
    expect(created.apiKey).toMatch(/^sk-gw-/);
    expect(created.key).toMatchObject({ name: "laptop", group: "default", spendCapMicros: 2_000_000, readLogs: true });
    const keyId = created.key!.keyId;
    const order = await call.createTopUpOrder({
      accountId: alice,
      provider: PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY,
      amountFen: 100,
      merchantId: MERCHANT,
      expiresInMs: 0,
    });
    const requestId = `req-${randomUUID()}`;
    await queryRows(
      ledger.database.url,
      `INSERT INTO ledger.usage_records (request_id, account_id, key_id, model, vendor, channel, endpoint,
         prompt_tokens, completion_tokens, total_tokens, estimated, outcome, cost_micros, latency_ms, stream, started_at)
       VALUES ($1, $2, $3, 'gpt-4o-mini', 'openai', 'sim', '/v1/chat/completions', 3, 4, 7, false, 'ok', 70, 120, false, now())`,
      [requestId, alice, keyId],
    );
    await queryRows(
      ledger.database.url,
      `INSERT INTO ledger.request_logs (request_id, account_id, capture, request_body, response_body)
       VALUES ($1, $2, 'full', '{"messages":[]}', '{"choices":[]}')`,
      [requestId, alice],
    );

    // Alice sees hers.
    expect((await call.listKeys({ accountId: alice })).keys.map((key) => key.keyId)).toEqual([keyId]);
    expect((await call.listUsage({ accountId: alice, filter: undefined })).records.map((r) => r.requestId)).toEqual([
      requestId,
    ]);
    const log = await call.getRequestLog({ accountId: alice, requestId });
    expect(log).toMatchObject({ capture: "full", requestBody: '{"messages":[]}', usage: { model: "gpt-4o-mini" } });
    expect((await call.listRequestLogs({ accountId: alice, filter: undefined })).logs).toHaveLength(1);
    expect((await call.listTopUpOrders({ accountId: alice, limit: 0, cursor: "" })).orders).toHaveLength(1);

    // Bob, naming his own account, sees none of it, and cannot act on it.
    expect((await call.listKeys({ accountId: bob })).keys).toEqual([]);
    expect(
      (await call.listUsage({ accountId: bob, filter: { limit: 0, cursor: "", fromMs: 0, toMs: 0, keyId } })).records,
    ).toEqual([]);
    expect((await call.listRequestLogs({ accountId: bob, filter: undefined })).logs).toEqual([]);
    expect((await call.listTopUpOrders({ accountId: bob, limit: 0, cursor: "" })).orders).toEqual([]);
    await expect(call.getRequestLog({ accountId: bob, requestId })).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(call.getTopUpOrder({ accountId: bob, outTradeNo: order.outTradeNo })).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    await expect(call.revokeKey({ accountId: bob, keyId })).rejects.toMatchObject({ code: status.NOT_FOUND });
    const statistics = await call.getStatistics({ accountId: bob, fromDay: "", toDay: "", model: undefined });
    expect(statistics.rows).toEqual([]);
    expect((await call.listKeys({ accountId: alice })).keys[0]?.status).toBe(1);

    // Alice revokes her key: announced over NATS as the admin API's revocations are.
    const nats = await connect({ servers: testServers.natsUrl });
    try {
      const revoked = nats.subscribe(natsNames(ledger.namespace).keyRevokedSubject, { max: 1 });
      await nats.flush();
      const revokedKey = await call.revokeKey({ accountId: alice, keyId });
      expect(revokedKey.revokedAtMs).toBeGreaterThan(0);
      for await (const message of revoked) expect(KeyRevoked.decode(message.data).keyHash).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await nats.close();
    }
    await expect(
      call.listUsage({ accountId: alice, filter: { limit: 0, cursor: "not-a-cursor", fromMs: 0, toMs: 0 } }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/cursor/) });
  });

  it("answers bad input with INVALID_ARGUMENT or NOT_FOUND, never an internal error", async () => {
    const accountId = (await signIn("github", randomUUID())).account!.accountId;
    const invalid = { code: status.INVALID_ARGUMENT };
    await expect(signIn("github", "nul\u0000subject")).rejects.toMatchObject(invalid);
    await expect(signIn("github", "s".repeat(256))).rejects.toMatchObject(invalid);
    await expect(
      call.createTopUpOrder({ accountId, provider: 0, amountFen: 100, merchantId: MERCHANT, expiresInMs: 0 }),
    ).rejects.toMatchObject(invalid);
    await expect(
      call.createTopUpOrder({
        accountId,
        provider: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
        amountFen: 100,
        merchantId: MERCHANT,
        expiresInMs: 10,
      }),
    ).rejects.toMatchObject(invalid);
    await expect(
      call.recordPaymentNotification({
        provider: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
        headers: {},
        body: "x".repeat(2 * 1024 * 1024),
        signatureVerified: true,
        facts: undefined,
      }),
    ).rejects.toMatchObject(invalid);
    await expect(
      call.createKey({ accountId, name: "", group: "nonexistent", expiresAtMs: 0, readLogs: false }),
    ).rejects.toMatchObject(invalid);
    expect(
      (await call.createKey({ accountId, name: "", group: "", expiresAtMs: 0, readLogs: false })).key,
    ).toMatchObject({
      name: "key",
      group: "default",
    });
    await expect(
      call.closeTopUpOrder({ outTradeNo: "x", state: TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(call.revokeKey({ accountId, keyId: "nope" })).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(call.getRequestLog({ accountId, requestId: "a\u0000b" })).rejects.toMatchObject({
      code: status.NOT_FOUND,
    });
    await expect(call.getBalance({ accountId: randomUUID() })).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(
      call.adjustCredit({
        accountId,
        amountMicros: 0,
        reason: "r",
        actor: "a",
        actorRole: "admin",
        actorAccountId: "",
        idempotencyKey: "k",
        targetIsAdmin: false,
      }),
    ).rejects.toMatchObject(invalid);
  });

  it("lists accounts and adjusts credit with an audited reason", async () => {
    const accountId = (await signIn("github", randomUUID(), "adjusted")).account!.accountId;
    const adjusted = await call.adjustCredit({
      accountId,
      amountMicros: 2_500_000,
      reason: "support ticket 7",
      actor: "github:1",
      actorRole: "support",
      actorAccountId: "",
      idempotencyKey: randomUUID(),
      targetIsAdmin: false,
    });
    expect(adjusted).toMatchObject({ balanceMicros: 2_500_000, replayed: false });
    const page = await call.listAccounts({ limit: 500, cursor: "" });
    expect(page.accounts.find((account) => account.accountId === accountId)?.balanceMicros).toBe(2_500_000);
    const first = await call.listAccounts({ limit: 1, cursor: "" });
    const second = await call.listAccounts({ limit: 1, cursor: first.nextCursor });
    expect(second.accounts[0]?.accountId).not.toBe(first.accounts[0]?.accountId);
  });

  it("reads an account and its log capture, and sets the capture (absent: the deployment's default)", async () => {
    const accountId = (await signIn("oidc", randomUUID(), "settings")).account!.accountId;
    expect(await call.getAccount({ accountId })).toMatchObject({ accountId, name: "settings", balanceMicros: 0 });
    expect(await call.getAccountSettings({ accountId })).toEqual({ accountId, logCapture: undefined });
    expect(await call.setLogCapture({ accountId, logCapture: "metadata" })).toEqual({
      accountId,
      logCapture: "metadata",
    });
    expect((await call.getAccountSettings({ accountId })).logCapture).toBe("metadata");
    expect(await call.setLogCapture({ accountId, logCapture: undefined })).toEqual({
      accountId,
      logCapture: undefined,
    });
    await expect(call.setLogCapture({ accountId, logCapture: "everything" })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(call.getAccount({ accountId: randomUUID() })).rejects.toMatchObject({ code: status.NOT_FOUND });
    await expect(
      call.listUsage({
        accountId,
        filter: { fromMs: 0, toMs: 0, limit: 0, cursor: "" },
        status: "sideways",
      }),
    ).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });
});
