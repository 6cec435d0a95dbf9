import { accountUsageRecords, queryRows, startTestStack, TestNats, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";

// The stack gets a NATS of its own, so the test can stop it mid-load and start it again.
let nats: TestNats;
let stack: TestStack;

beforeAll(async () => {
  nats = await TestNats.start();
  stack = await startTestStack({ natsUrl: nats.url, env: { USAGE_SPOOL_RETRY_MS: "500" } });
});
afterAll(async () => {
  await stack?.teardown();
  await nats?.remove();
});

it("loses no usage and bills none twice when NATS goes away under load and comes back", async () => {
  const account = await stack.createAccount({ creditYuan: 10 });
  const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  const ask = async (content: string) =>
    (await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content }] }))
      ._request_id!;

  const before = await Promise.all(Array.from({ length: 10 }, (_, index) => ask(`before ${index}`)));
  await nats.stop();
  // Clients keep being served while usage cannot reach NATS.
  const during = await Promise.all(Array.from({ length: 10 }, (_, index) => ask(`during ${index}`)));
  // Long enough for the publishes to time out and land in the spool.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  await nats.resume();

  const served = [...before, ...during].sort();
  const records = await accountUsageRecords(stack.databaseUrl, account.account_id, served.length, 30_000);
  expect(records.map((row) => row.request_id).sort()).toEqual(served);
  const [{ balance_micros: balance }] = await queryRows<{ balance_micros: string }>(
    stack.databaseUrl,
    "SELECT balance_micros FROM ledger.accounts WHERE id = $1",
    [account.account_id],
  );
  const billed = records.reduce((sum, row) => sum + BigInt(row.cost_micros), 0n);
  expect(10_000_000n - BigInt(balance)).toBe(billed);
}, 60_000);
