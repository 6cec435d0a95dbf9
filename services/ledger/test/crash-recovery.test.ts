import { randomUUID } from "node:crypto";
import { loadUsageDefinition, natsNames } from "@gateway/platform";
import { UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import { eventually, queryRows, testServers } from "@gateway/stack";
import { connect } from "nats";
import { afterAll, beforeAll, expect, it } from "vitest";
import { adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

let ledger: LedgerUnderTest;

beforeAll(async () => {
  ledger = await startLedger();
});
afterAll(async () => {
  await ledger?.cleanUp();
});

const recordCount = async (accountId: string) =>
  Number(
    (
      await queryRows<{ count: string }>(
        ledger.database.url,
        "SELECT count(*) AS count FROM ledger.usage_records WHERE account_id = $1",
        [accountId],
      )
    )[0]!.count,
  );

// Messages the killed process held come back after the consumer's ack wait (30 s), hence the long timeout.
it("bills every event exactly once when the ledger is killed mid-batch and another takes over", async () => {
  const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "crash" });
  // Several times what two batches in flight hold, so the kill lands before the last commit.
  const total = 10_000;
  const events = Array.from({ length: total }, (_, index) =>
    UsageEvent.fromPartial({
      requestId: `crash-${index}-${randomUUID()}`,
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
  const nats = await connect({ servers: testServers.natsUrl });
  try {
    const jetstream = nats.jetstream();
    const subject = natsNames(ledger.namespace).usageSubject("sim");
    // Published a slice at a time, so the kill below lands while events are still arriving:
    // a ledger that keeps up with the publisher would otherwise be done before it.
    const published = (async () => {
      for (let start = 0; start < total; start += 200) {
        const slice = events.slice(start, start + 200);
        await Promise.all(
          slice.map((event) =>
            jetstream.publish(subject, UsageEvent.encode(event).finish(), { msgID: event.requestId }),
          ),
        );
      }
    })();
    // Kill it once it has committed some batches but not all.
    await eventually(async () => ((await recordCount(account.account_id)) > 0 ? true : undefined), 15_000, 5);
    await ledger.service.stop("SIGKILL");
    expect(await recordCount(account.account_id)).toBeLessThan(total);
    await published;

    await ledger.startAnother();
    const manager = await nats.jetstreamManager();
    const { stream, consumer } = loadUsageDefinition(ledger.namespace);
    await eventually(async () => {
      const info = await manager.consumers.info(stream.name, consumer.durable_name);
      return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
    }, 45_000);
  } finally {
    await nats.close();
  }
  expect(await recordCount(account.account_id)).toBe(total);
  // Each event costs 2 micro-yuan at list price: one debit each, none twice. (The first
  // process is gone, so the balance is read from Postgres rather than its admin API.)
  const [row] = await queryRows<{ balance_micros: string }>(
    ledger.database.url,
    "SELECT balance_micros FROM ledger.accounts WHERE id = $1",
    [account.account_id],
  );
  expect(row!.balance_micros).toBe(String(-2 * total));
}, 90_000);
