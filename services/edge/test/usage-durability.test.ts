import { accountUsageRecords, eventually, queryRows, startTestStack, TestNats, type TestStack } from "@gateway/stack";
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

interface LogAnswer {
  capture: string;
  request_body: { messages: Array<{ role: string; content: string }> };
  response_body: { choices: Array<{ content: string }> };
}

it("keeps every request's bodies, read where request logs are read, when NATS goes away under load and comes back", async () => {
  const account = await stack.createAccount({ readLogs: true });
  const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  const asked = new Map<string, { question: string; answer: string }>();
  const ask = async (question: string) => {
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: question }],
    });
    asked.set(completion._request_id!, { question, answer: completion.choices[0]!.message.content! });
  };

  await Promise.all(Array.from({ length: 10 }, (_, index) => ask(`before ${index}`)));
  await nats.stop();
  // Served while neither usage nor request logs can reach NATS.
  await Promise.all(Array.from({ length: 10 }, (_, index) => ask(`during ${index}`)));
  // Long enough for the publishes to time out and land in the spools.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  await nats.resume();

  const logOf = async (requestId: string) => {
    const response = await fetch(`${stack.adminUrl}/v1/account/logs/${requestId}`, {
      headers: { authorization: `Bearer ${account.api_key}` },
    });
    return response.status === 200 ? ((await response.json()) as LogAnswer) : undefined;
  };
  for (const [requestId, { question, answer }] of asked) {
    const log = await eventually(() => logOf(requestId), 30_000);
    expect(log.capture).toBe("full");
    expect(log.request_body.messages).toEqual([{ role: "user", content: question }]);
    expect(log.response_body.choices[0]!.content).toBe(answer);
  }
  const [{ count }] = await queryRows<{ count: string }>(
    stack.databaseUrl,
    "SELECT count(*) FROM ledger.request_logs WHERE account_id = $1",
    [account.account_id],
  );
  expect(Number(count)).toBe(asked.size);
}, 90_000);
