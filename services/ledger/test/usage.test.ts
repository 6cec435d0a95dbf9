import { randomUUID } from "node:crypto";
import { UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import { loadUsageDefinition, natsNames } from "@gateway/shared";
import { eventually, testServers } from "@gateway/stack";
import { connect, headers, type JetStreamClient, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

describe("usage consumer", () => {
  let ledger: LedgerUnderTest;
  let nats: NatsConnection;
  let jetstream: JetStreamClient;

  beforeAll(async () => {
    ledger = await startLedger();
    nats = await connect({ servers: testServers.natsUrl });
    jetstream = nats.jetstream();
  });
  afterAll(async () => {
    await nats?.close();
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
});
