import { randomUUID } from "node:crypto";
import { requestLogMessages } from "@gateway/billing";
import { loadUsageDefinition, natsNames } from "@gateway/platform";
import { LogCapture } from "@gateway/proto/common/v1/common";
import { type RequestLogEntry, UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import { eventually, queryRows, testServers } from "@gateway/stack";
import { connect, type JetStreamClient, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountCall, adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

describe("request log batches", () => {
  let ledger: LedgerUnderTest;
  let nats: NatsConnection;
  let jetstream: JetStreamClient;
  let account: { account_id: string; key_id: string; api_key: string };

  beforeAll(async () => {
    ledger = await startLedger();
    nats = await connect({ servers: testServers.natsUrl });
    jetstream = nats.jetstream();
    account = (await adminCall(ledger, "POST", "/accounts", { name: "ivan", credit_yuan: "10", read_logs: true })).body;
  });
  afterAll(async () => {
    await nats?.close();
    expect(await ledger?.cleanUp()).toEqual([0]);
  });

  /** Resolves once ledger has acked (or terminated) everything published so far on both streams. */
  const allProcessed = async () => {
    const manager = await nats.jetstreamManager();
    const usage = loadUsageDefinition(ledger.namespace);
    await eventually(async () => {
      for (const { stream, consumer } of [usage, usage.request_logs]) {
        const info = await manager.consumers.info(stream.name, consumer.durable_name);
        if (info.num_pending > 0 || info.num_ack_pending > 0) return undefined;
      }
      return true;
    });
  };

  const entry = (requestId: string, question: string): RequestLogEntry => ({
    requestId,
    accountId: account.account_id,
    startedAtMs: Date.now() - 200,
    log: {
      capture: LogCapture.LOG_CAPTURE_FULL,
      requestBody: JSON.stringify({ messages: [{ role: "user", content: question }] }),
      responseBody: JSON.stringify({ choices: [{ index: 0, content: "Paris.", finish_reason: "stop" }] }),
      truncated: false,
      errorMessage: "",
    },
  });

  /** Each batch as router sends it: one compressed message with an id of its own. */
  const sendLogs = async (...entries: RequestLogEntry[]) => {
    for (const message of requestLogMessages(natsNames(ledger.namespace).requestLogSubject, entries)) {
      await jetstream.publish(message.subject, message.data, { msgID: message.id });
    }
    await allProcessed();
  };

  /** The usage event router sends for a request logged in full: no log of its own. */
  const sendUsage = async (requestId: string) => {
    const event = UsageEvent.fromPartial({
      requestId,
      accountId: account.account_id,
      keyId: account.key_id,
      model: "gpt-4o-mini",
      vendor: "sim",
      promptTokens: 3,
      completionTokens: 5,
      totalTokens: 8,
      outcome: UsageOutcome.USAGE_OUTCOME_OK,
      startedAtMs: Date.now() - 200,
      inputPriceMicros: 1_000_000,
      outputPriceMicros: 2_000_000,
    });
    await jetstream.publish(natsNames(ledger.namespace).usageSubject("sim"), UsageEvent.encode(event).finish(), {
      msgID: requestId,
    });
    await allProcessed();
  };

  const readLog = (requestId: string) => accountCall(ledger, account.api_key, `/logs/${requestId}`);

  it("keeps an entry that arrives before its usage record, and shows it once the record is in", async () => {
    const requestId = `req-${randomUUID()}`;
    await sendLogs(entry(requestId, "Capital of France?"));
    expect((await readLog(requestId)).status).toBe(404);

    await sendUsage(requestId);
    const { status, body } = await readLog(requestId);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      request_id: requestId,
      capture: "full",
      request_body: { messages: [{ role: "user", content: "Capital of France?" }] },
      response_body: { choices: [{ index: 0, content: "Paris." }] },
      truncated: false,
    });
  });

  it("shows an entry that arrives after its usage record", async () => {
    const requestId = `req-${randomUUID()}`;
    await sendUsage(requestId);
    await sendLogs(entry(requestId, "And of Italy?"));
    expect((await readLog(requestId)).body.request_body).toEqual({
      messages: [{ role: "user", content: "And of Italy?" }],
    });
  });

  it("writes a redelivered or republished entry once, keeping the first", async () => {
    const requestId = `req-${randomUUID()}`;
    const others = [0, 1, 2].map((index) => entry(`req-${randomUUID()}`, `other ${index}`));
    await sendLogs(entry(requestId, "first copy"), ...others);
    // A batch journaled and spooled again by a killed router, or one JetStream delivers twice.
    await sendLogs(entry(requestId, "second copy"), entry(requestId, "third copy"), ...others);
    const rows = await queryRows<{ request_body: string }>(
      ledger.database.url,
      "SELECT request_body FROM ledger.request_logs WHERE request_id = $1",
      [requestId],
    );
    expect(rows.map(({ request_body }) => JSON.parse(request_body).messages[0].content)).toEqual(["first copy"]);
    const stored = await queryRows<{ count: string }>(
      ledger.database.url,
      "SELECT count(*) FROM ledger.request_logs WHERE request_id = ANY($1)",
      [others.map(({ requestId: id }) => id)],
    );
    expect(Number(stored[0]!.count)).toBe(others.length);
  });

  it("drops a batch that is not one, and goes on storing the next", async () => {
    await jetstream.publish(natsNames(ledger.namespace).requestLogSubject, new TextEncoder().encode("not a batch"), {
      msgID: randomUUID(),
    });
    const requestId = `req-${randomUUID()}`;
    await sendLogs(entry(requestId, "still stored"));
    await sendUsage(requestId);
    expect((await readLog(requestId)).status).toBe(200);
  });
});
