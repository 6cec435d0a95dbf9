import { randomUUID } from "node:crypto";
import { billingKeys } from "@gateway/billing";
import { loadUsageDefinition, natsNames } from "@gateway/platform";
import { LogCapture } from "@gateway/proto/common/v1/common";
import { UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import { eventually, queryRows, testServers } from "@gateway/stack";
import { connect, headers, type JetStreamClient, type NatsConnection } from "nats";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

describe("usage consumer", () => {
  let ledger: LedgerUnderTest;
  let nats: NatsConnection;
  let jetstream: JetStreamClient;
  let redis: ReturnType<typeof createClient>;

  beforeAll(async () => {
    ledger = await startLedger();
    nats = await connect({ servers: testServers.natsUrl });
    jetstream = nats.jetstream();
    redis = createClient({ url: testServers.redisUrl });
    await redis.connect();
  });
  afterAll(async () => {
    await nats?.close();
    redis?.destroy();
    expect(await ledger?.cleanUp()).toEqual([0]);
  });

  /** Resolves once the ledger has acked (or terminated) everything published so far. */
  const allProcessed = async () => {
    const manager = await nats.jetstreamManager();
    const { stream, consumer } = loadUsageDefinition(ledger.namespace);
    await eventually(async () => {
      const info = await manager.consumers.info(stream.name, consumer.durable_name);
      return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
    });
  };

  /** A 3 + 5 token request at 1 and 2 yuan per million tokens: 13 micros at list price. */
  const usageEvent = (key: { account_id: string; key_id: string }, fields: Partial<UsageEvent> = {}) =>
    UsageEvent.fromPartial({
      requestId: `req-${randomUUID()}`,
      accountId: key.account_id,
      keyId: key.key_id,
      model: "m",
      vendor: "sim",
      promptTokens: 3,
      completionTokens: 5,
      totalTokens: 8,
      outcome: UsageOutcome.USAGE_OUTCOME_OK,
      startedAtMs: Date.now(),
      inputPriceMicros: 1_000_000,
      outputPriceMicros: 2_000_000,
      ...fields,
    });

  /** Publishes every event as a message of its own (so copies pass JetStream's de-duplication) and waits for them. */
  const deliver = async (...events: UsageEvent[]) => {
    const subject = natsNames(ledger.namespace).usageSubject("sim");
    await Promise.all(
      events.map((event) => jetstream.publish(subject, UsageEvent.encode(event).finish(), { msgID: randomUUID() })),
    );
    await allProcessed();
  };

  const rows = <Row>(sql: string, params: unknown[]) => queryRows<Row>(ledger.database.url, sql, params);

  it("bills a request exactly once however often its event arrives", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", {
      name: "heidi",
      group: "premium",
      credit_yuan: "10",
    });
    const requestId = `req-${randomUUID()}`;
    const event = UsageEvent.encode({
      requestId,
      accountId: account.account_id,
      keyId: account.key_id,
      model: "gpt-4o-mini",
      vendor: "openai",
      channel: "openai-main",
      endpoint: "/v1/chat/completions",
      promptTokens: 1001,
      completionTokens: 333,
      totalTokens: 1334,
      estimated: false,
      outcome: UsageOutcome.USAGE_OUTCOME_OK,
      errorCode: "",
      startedAtMs: Date.now() - 500,
      latencyMs: 480,
      stream: true,
      inputPriceMicros: 2_000_001,
      outputPriceMicros: 8_000_003,
      billedUnits: 0,
      unit: "",
      unitPriceMicros: 0,
      cachedTokens: 0,
      cacheCreationTokens: 0,
      reasoningTokens: 0,
      cacheReadPriceMicros: 0,
      cacheWritePriceMicros: 0,
      imageInputTokens: 0,
      imageInputPriceMicros: 0,
    }).finish();
    // (1001 × 2,000,001 + 333 × 8,000,003) / 1,000,000 = 4666.002 → 4667 micros at list price;
    // the premium group's 1.5× makes 7000.5 → 7001. Both steps round up.
    const expectedCostMicros = 7001n;
    const subject = natsNames(ledger.namespace).usageSubject("openai");
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const traced = headers();
    traced.set("traceparent", `00-${traceId}-00f067aa0ba902b7-01`);

    // A malformed event first: it must be dropped without holding up the good ones.
    await jetstream.publish(subject, UsageEvent.encode({ ...UsageEvent.decode(event), accountId: "nope" }).finish(), {
      msgID: `bad-${requestId}`,
    });
    const first = await jetstream.publish(subject, event, { msgID: requestId, headers: traced });
    const duplicate = await jetstream.publish(subject, event, { msgID: requestId });
    expect(duplicate.duplicate).toBe(true);
    expect(first.duplicate).toBe(false);
    // Past JetStream's de-duplication (another msgID): only the ledger's unique request_id stops it.
    await jetstream.publish(subject, event, { msgID: `${requestId}-republished` });
    await allProcessed();

    const { body: usage } = await adminCall(ledger, "GET", `/accounts/${account.account_id}/usage`);
    expect(usage.data).toHaveLength(1);
    expect(usage.data[0]).toMatchObject({
      request_id: requestId,
      key_id: account.key_id,
      model: "gpt-4o-mini",
      prompt_tokens: 1001,
      completion_tokens: 333,
      total_tokens: 1334,
      outcome: "ok",
      error_code: null,
      stream: true,
      cost_micros: expectedCostMicros.toString(),
      trace_id: traceId,
    });
    const { body: balance } = await adminCall(ledger, "GET", `/accounts/${account.account_id}`);
    expect(BigInt(balance.balance_micros)).toBe(10_000_000n - expectedCostMicros);

    const { body: keys } = await adminCall(ledger, "GET", `/accounts/${account.account_id}/keys`);
    expect(keys.data[0].last_used_at).not.toBeNull();
  });

  it("records a burst of events from many requests in batches", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "ivan" });
    const events = Array.from({ length: 300 }, (_, index) =>
      UsageEvent.fromPartial({
        requestId: `burst-${index}-${randomUUID()}`,
        accountId: account.account_id,
        keyId: account.key_id,
        model: "m",
        vendor: "sim",
        promptTokens: 1,
        completionTokens: 1,
        totalTokens: 2,
        outcome: UsageOutcome.USAGE_OUTCOME_OK,
        inputPriceMicros: 1_000_000,
        outputPriceMicros: 1_000_000,
      }),
    );
    const subject = natsNames(ledger.namespace).usageSubject("sim");
    await Promise.all(
      events.map((event) => jetstream.publish(subject, UsageEvent.encode(event).finish(), { msgID: event.requestId })),
    );
    await allProcessed();
    // Each costs 2 micros at list price.
    const { body: balance } = await adminCall(ledger, "GET", `/accounts/${account.account_id}`);
    expect(balance.balance_micros).toBe(String(-2 * events.length));
    const { body: usage } = await adminCall(ledger, "GET", `/accounts/${account.account_id}/usage?limit=1000`);
    expect(usage.data).toHaveLength(events.length);
  });

  it("keeps each request's log at the level it was captured at, and none without one", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "judy" });
    const startedAtMs = Date.parse("2031-05-06T07:08:09.123Z");
    const full = usageEvent(account, {
      startedAtMs,
      log: {
        capture: LogCapture.LOG_CAPTURE_FULL,
        requestBody: '{"messages":[{"role":"user","content":"hi"}]}',
        responseBody: '{"content":"hello"}',
        truncated: true,
        errorMessage: "",
      },
    });
    const metadata = usageEvent(account, {
      startedAtMs,
      outcome: UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR,
      log: {
        capture: LogCapture.LOG_CAPTURE_METADATA,
        requestBody: "not kept at metadata",
        responseBody: "nor this",
        truncated: true,
        errorMessage: "The vendor failed.",
      },
    });
    const unlogged = usageEvent(account);
    await deliver(full, metadata, unlogged);

    const logs = await rows<Record<string, unknown>>(
      `SELECT request_id, capture, request_body, response_body, truncated, error_message, created_at
       FROM ledger.request_logs WHERE account_id = $1`,
      [account.account_id],
    );
    const started = new Date(startedAtMs);
    expect(logs).toHaveLength(2);
    expect(logs).toContainEqual({
      request_id: full.requestId,
      capture: "full",
      request_body: full.log!.requestBody,
      response_body: full.log!.responseBody,
      truncated: true,
      error_message: null,
      created_at: started,
    });
    expect(logs).toContainEqual({
      request_id: metadata.requestId,
      capture: "metadata",
      request_body: null,
      response_body: null,
      truncated: false,
      error_message: "The vendor failed.",
      created_at: started,
    });
    const recorded = await rows("SELECT 1 FROM ledger.usage_records WHERE request_id = $1", [unlogged.requestId]);
    expect(recorded).toHaveLength(1);
  });

  it("adds nothing to logs, statistics or key spending for a repeated event", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "karl" });
    const event = usageEvent(account, {
      log: {
        capture: LogCapture.LOG_CAPTURE_METADATA,
        requestBody: "",
        responseBody: "",
        truncated: false,
        errorMessage: "",
      },
    });
    // Twice within one delivery (most likely one batch), then again in a later batch.
    await deliver(event, event);
    await deliver(event);

    const totals = await rows(
      `SELECT (SELECT count(*)::int FROM ledger.usage_records WHERE account_id = $1) AS records,
              (SELECT count(*)::int FROM ledger.request_logs WHERE account_id = $1) AS logs,
              (SELECT json_agg(json_build_object('requests', requests, 'cost', cost_micros))
                 FROM ledger.daily_usage WHERE account_id = $1) AS statistics,
              (SELECT spent_micros::text FROM ledger.api_keys WHERE id = $2) AS spent,
              (SELECT balance_micros::text FROM ledger.accounts WHERE id = $1) AS balance`,
      [account.account_id, account.key_id],
    );
    expect(totals).toEqual([
      { records: 1, logs: 1, statistics: [{ requests: 1, cost: 13 }], spent: "13", balance: "-13" },
    ]);
  });

  it("keeps daily statistics equal to the records of each UTC day and model", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "lena" });
    // The last millisecond of one UTC day and the first of the next.
    const days = [Date.parse("2031-01-01T23:59:59.999Z"), Date.parse("2031-01-02T00:00:00.000Z")];
    const events = (round: number) =>
      days.flatMap((startedAtMs) =>
        ["model-a", "model-b"].flatMap((model, index) =>
          Array.from({ length: round + index + 1 }, (_, count) =>
            usageEvent(account, { startedAtMs, model, promptTokens: 10 * count + round, completionTokens: index + 7 }),
          ),
        ),
      );
    // Two rounds, so the second adds to statistics rows the first created.
    await deliver(...events(0));
    await deliver(...events(1));

    const statistics = await rows(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, model, requests::int, prompt_tokens::int AS prompt,
              completion_tokens::int AS completion, cost_micros::int AS cost
       FROM ledger.daily_usage WHERE account_id = $1 ORDER BY day, model`,
      [account.account_id],
    );
    const records = await rows(
      `SELECT to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, model, count(*)::int AS requests,
              sum(prompt_tokens)::int AS prompt, sum(completion_tokens)::int AS completion, sum(cost_micros)::int AS cost
       FROM ledger.usage_records WHERE account_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [account.account_id],
    );
    expect(statistics).toEqual(records);
    expect(statistics.map((row) => Object.values(row as object).slice(0, 3))).toEqual([
      ["2031-01-01", "model-a", 3],
      ["2031-01-01", "model-b", 5],
      ["2031-01-02", "model-a", 3],
      ["2031-01-02", "model-b", 5],
    ]);
  });

  it("keeps each key's spending equal to the cost of its records", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "mona" });
    const { body: premium } = await adminCall(ledger, "POST", `/accounts/${account.account_id}/keys`, {
      group: "premium",
    });
    const keys = [account, { account_id: account.account_id, key_id: premium.key_id }];
    const round = (size: number) =>
      keys.flatMap((key) => Array.from({ length: size }, (_, index) => usageEvent(key, { promptTokens: 7 * index })));
    await deliver(...round(3));
    await deliver(...round(4));

    const spending = await rows(
      `SELECT key.id, key.spent_micros::int AS spent, (SELECT sum(cost_micros)::int FROM ledger.usage_records
         WHERE key_id = key.id) AS recorded
       FROM ledger.api_keys AS key WHERE key.account_id = $1 ORDER BY key.id`,
      [account.account_id],
    );
    expect(spending).toHaveLength(2);
    for (const key of spending as { spent: number; recorded: number }[]) expect(key.spent).toBe(key.recorded);
    // The premium key paid 1.5 times the same usage.
    const spentBy = new Map((spending as { id: string; spent: number }[]).map((key) => [key.id, key.spent]));
    expect(spentBy.get(premium.key_id)).toBeGreaterThan(spentBy.get(account.key_id)!);
  });

  it("overwrites the router's copy of a capped key's spending and frees the key's reservations", async () => {
    const { body: owner } = await adminCall(ledger, "POST", "/accounts", { name: "nils" });
    const { body: capped } = await adminCall(ledger, "POST", `/accounts/${owner.account_id}/keys`, {
      group: "default",
      spend_cap_yuan: "1",
    });
    const account = { account_id: owner.account_id, key_id: capped.key_id };
    const { body: uncopied } = await adminCall(ledger, "POST", `/accounts/${owner.account_id}/keys`, {
      group: "default",
    });
    const keys = billingKeys(ledger.namespace, account.account_id);
    const event = usageEvent(account);
    const other = usageEvent({ account_id: account.account_id, key_id: uncopied.key_id });
    // As router leaves them: a loaded spending copy for the first key, reservations for both.
    await redis.set(keys.keySpent(account.key_id), "0");
    await redis.hSet(keys.reservations, { [event.requestId]: "20", [other.requestId]: "20" });
    await redis.hSet(keys.keyReservations(account.key_id), event.requestId, "20");
    await redis.hSet(keys.keyReservations(uncopied.key_id), other.requestId, "20");

    await deliver(event, usageEvent(account), other);

    // Settling follows the ack, so it may land a moment after the stream is drained.
    await eventually(async () => ((await redis.get(keys.keySpent(account.key_id))) === "26" ? true : undefined));
    expect(await redis.hLen(keys.reservations)).toBe(0);
    expect(await redis.hLen(keys.keyReservations(account.key_id))).toBe(0);
    expect(await redis.hLen(keys.keyReservations(uncopied.key_id))).toBe(0);
    // Router checks (and so copies) only keys with a cap.
    expect(await redis.exists(keys.keySpent(uncopied.key_id))).toBe(0);
  });

  it("gives each charged request's worst case back to the admission lease it came from, once", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "olga", credit_yuan: "10" });
    const keys = billingKeys(ledger.namespace, account.account_id);
    const lease = "lease:router-a:1";
    const leased = (micros: number) => usageEvent(account, { leaseId: lease, leasedMicros: micros });
    // As router leaves a lease: its unspent rest (50) and the worst cases of what it admitted.
    await redis.hSet(keys.reservations, lease, "100");
    await redis.zAdd(keys.expiries, { score: Date.now() + 60_000, value: lease });
    const first = leased(30);

    // Two copies of one event in a batch, then a redelivery later: one give-back for it.
    await deliver(first, first, leased(20));
    await eventually(async () => ((await redis.hGet(keys.reservations, lease)) === "50" ? true : undefined));
    await deliver(first);
    expect(await redis.hGet(keys.reservations, lease)).toBe("50");

    // Router hands the rest back: the lease is gone, expiry and all.
    await redis.hSet(keys.reservations, lease, "50");
    await deliver(leased(50));
    await eventually(async () => ((await redis.hExists(keys.reservations, lease)) ? undefined : true));
    expect(await redis.zScore(keys.expiries, lease)).toBeNull();
    // What the lease was given back for goes with it.
    expect(await redis.exists(`${keys.reservations}:settled:${lease}`)).toBe(0);
  });

  it("gives a request back to its lease from a redelivered event when the replica that charged it never did", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "pavel", credit_yuan: "10" });
    const keys = billingKeys(ledger.namespace, account.account_id);
    const lease = "lease:router-a:1";
    await redis.hSet(keys.reservations, lease, "100");
    await redis.zAdd(keys.expiries, { score: Date.now() + 60_000, value: lease });
    const event = usageEvent(account, { leaseId: lease, leasedMicros: 30 });
    await deliver(event);
    await eventually(async () => ((await redis.hGet(keys.reservations, lease)) === "70" ? true : undefined));

    // As if that replica had been killed after its commit and before its Redis settlement.
    await redis.hSet(keys.reservations, lease, "100");
    await redis.del(`${keys.reservations}:settled:${lease}`);
    await deliver(event);
    await eventually(async () => ((await redis.hGet(keys.reservations, lease)) === "70" ? true : undefined));
    expect(await rows("SELECT 1 FROM ledger.usage_records WHERE request_id = $1", [event.requestId])).toHaveLength(1);
  });
});
