import {
  accountUsageRecords,
  balanceMicrosOf,
  clearSimulatorRequests,
  eventually,
  queryRows,
  simulatorRequests,
  startTestStack,
  TestRedis,
  type TestStack,
} from "@gateway/stack";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The stack gets a Redis of its own, so the outage test can stop and restart it.
let redis: TestRedis;
let stack: TestStack;

beforeAll(async () => {
  redis = await TestRedis.start();
  stack = await startTestStack({ redisUrl: redis.url });
});
afterAll(async () => {
  await stack?.teardown();
  await redis?.stop();
});

const balanceOf = (accountId: string) => balanceMicrosOf(stack.databaseUrl, accountId);

function chatBody(content: string, fields: Record<string, unknown> = {}) {
  return JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content }], ...fields });
}

async function post(key: string, body: string) {
  const response = await fetch(`${stack.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body,
  });
  return { response, body: (await response.json()) as { error?: { code: string; type: string; message: string } } };
}

describe("prompt estimates", () => {
  it("reserves Chinese prompts at more than a token per character: refused where chars/4 would have admitted", async () => {
    // deepseek-chat: 2 micro-yuan per prompt token, 8 per output token, multiplier 1 (default group).
    // 20,000 characters at chars/4 reserved ~5,000 tokens (~0.010 yuan), within the 0.03 yuan credit;
    // at 1.5 tokens a character they reserve ~30,000 tokens (~0.060 yuan), beyond it.
    const account = await stack.createAccount({ creditYuan: 0.03 });
    const long = "统一模型网关按微元计费".repeat(2_000);
    const body = (content: string) =>
      JSON.stringify({ model: "deepseek-chat", messages: [{ role: "user", content }], max_tokens: 1 });
    await clearSimulatorRequests(stack.simulatorUrl);
    const refused = await post(account.api_key, body(long));
    expect(refused.response.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "insufficient_quota" });
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
    // A tenth of it reserves ~0.006 yuan and is served.
    const served = await post(account.api_key, body(long.slice(0, 2_000)));
    expect(served.response.status).toBe(200);
  });
});

describe("prepaid balance", () => {
  it("refuses a request the balance cannot cover with 429 insufficient_quota, before any vendor call", async () => {
    const account = await stack.createAccount({ creditYuan: 0 });
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
    await clearSimulatorRequests(stack.simulatorUrl);
    await expect(
      client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "broke" }] }),
    ).rejects.toMatchObject({ status: 429, code: "insufficient_quota", type: "insufficient_quota" });
    const { response } = await post(account.api_key, chatBody("broke again"));
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  });

  it("never lets 200 concurrent requests overdraw by more than one request's worst case, and bills each once", async () => {
    // One request's worst case here is about 440 micro-yuan; 0.01 yuan covers about 22.
    const account = await stack.createAccount({ creditYuan: 0.01 });
    const initial = await balanceOf(account.account_id);
    const body = chatBody("spend [sim:tokens=100]", { max_tokens: 100 });
    await clearSimulatorRequests(stack.simulatorUrl);
    const answers = await Promise.all(Array.from({ length: 200 }, () => post(account.api_key, body)));
    const served = answers.filter(({ response }) => response.status === 200);
    const refused = answers.filter(({ response }) => response.status === 429);
    expect(served.length + refused.length).toBe(200);
    expect(served.length).toBeGreaterThan(5);
    expect(served.length).toBeLessThan(40);
    for (const { body: answer } of refused) expect(answer.error).toMatchObject({ code: "insufficient_quota" });
    // Refused requests never reached the vendor.
    expect((await simulatorRequests(stack.simulatorUrl)).length).toBe(served.length);

    const servedIds = served.map(({ response }) => response.headers.get("x-request-id")!);
    const records = await accountUsageRecords(stack.databaseUrl, account.account_id, served.length);
    expect(records.map((row) => row.request_id).sort()).toEqual([...servedIds].sort());
    const final = await balanceOf(account.account_id);
    const billed = records.reduce((sum, row) => sum + BigInt(row.cost_micros), 0n);
    expect(initial - final).toBe(billed);
    const worstCase = billed / BigInt(records.length) + 1n;
    expect(final).toBeGreaterThanOrEqual(-worstCase);
  });

  it("reserves unit-priced work too: images and transcriptions the balance cannot cover never reach the vendor", async () => {
    const account = await stack.createAccount({ creditYuan: 0 });
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
    await clearSimulatorRequests(stack.simulatorUrl);
    await expect(
      client.images.generate({ model: "imagen-4.0-generate-001", prompt: "a lighthouse" }),
    ).rejects.toMatchObject({
      status: 429,
      code: "insufficient_quota",
    });
    // One second of 16 kHz, 16-bit mono silence as a WAV file.
    const samples = Buffer.alloc(32_000);
    const header = Buffer.alloc(44);
    header.write("RIFF", 0);
    header.writeUInt32LE(36 + samples.length, 4);
    header.write("WAVEfmt ", 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(16_000, 24);
    header.writeUInt32LE(32_000, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write("data", 36);
    header.writeUInt32LE(samples.length, 40);
    await expect(
      client.audio.transcriptions.create({
        model: "whisper-1",
        file: await toFile(Buffer.concat([header, samples]), "silence.wav"),
      }),
    ).rejects.toMatchObject({ status: 429, code: "insufficient_quota" });
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  });

  it("takes a top-up into account at once", async () => {
    const account = await stack.createAccount({ creditYuan: 0 });
    expect((await post(account.api_key, chatBody("before top-up"))).response.status).toBe(429);
    const credit = await fetch(`${stack.adminUrl}/admin/accounts/${account.account_id}/credits`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ yuan: 1, idempotency_key: `topup-${account.account_id}` }),
    });
    expect(credit.status).toBe(201);
    expect((await post(account.api_key, chatBody("after top-up"))).response.status).toBe(200);
  });

  it("answers 503, never a free request, while Redis is unavailable, and recovers", async () => {
    const account = await stack.createAccount({ creditYuan: 1 });
    expect((await post(account.api_key, chatBody("before outage"))).response.status).toBe(200);
    await redis.stop();
    await clearSimulatorRequests(stack.simulatorUrl);
    const { response, body } = await post(account.api_key, chatBody("during outage"));
    expect(response.status).toBe(503);
    expect(response.headers.get("x-should-retry")).toBe("true");
    expect(body.error).toMatchObject({ type: "server_error" });
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
    await redis.resume();
    await eventually(async () =>
      (await post(account.api_key, chatBody("after outage"))).response.status === 200 ? true : undefined,
    );
  });
});

describe("key spending caps", () => {
  async function createKey(accountId: string, spendCapYuan: string) {
    const response = await fetch(`${stack.adminUrl}/admin/accounts/${accountId}/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ group: "default", name: "capped", spend_cap_yuan: spendCapYuan }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { key_id: string; api_key: string };
  }
  const spentByKey = async (keyId: string) =>
    queryRows<{ records: string; spent: string; recorded: string }>(
      stack.databaseUrl,
      `SELECT count(*) AS records, COALESCE(sum(cost_micros), 0) AS recorded,
              (SELECT spent_micros FROM ledger.api_keys WHERE id = $1) AS spent
       FROM ledger.usage_records WHERE key_id = $1`,
      [keyId],
    );

  it("refuses a key whose cap is used up with insufficient_quota naming the cap, before any vendor call", async () => {
    const account = await stack.createAccount({ creditYuan: 100 });
    const capped = await createKey(account.account_id, "0");
    await clearSimulatorRequests(stack.simulatorUrl);
    const { response, body } = await post(capped.api_key, chatBody("over the cap"));
    expect(response.status).toBe(429);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(body.error).toMatchObject({ code: "insufficient_quota", type: "insufficient_quota" });
    expect(body.error?.message).toContain("spending cap of 0.000000 yuan");
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
    expect((await post(account.api_key, chatBody("the account's other key still works"))).response.status).toBe(200);
  });

  it("never lets concurrent requests spend past the cap, and keeps the key's spent total exact", async () => {
    const account = await stack.createAccount({ creditYuan: 100 });
    // Each request reserves its worst case (2,000 output tokens ≈ 0.0087 yuan): two fit under 0.02 yuan at once.
    const capYuan = 0.02;
    const capped = await createKey(account.account_id, String(capYuan));
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => post(capped.api_key, chatBody(`burst ${index}`, { max_tokens: 2000 }))),
    );
    const statuses = answers.map(({ response }) => response.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    expect(new Set(statuses)).toEqual(new Set([200, 429]));
    const served = statuses.filter((status) => status === 200).length;
    const [totals] = await eventually(async () => {
      const rows = await spentByKey(capped.key_id);
      return Number(rows[0]!.records) === served && rows[0]!.spent === rows[0]!.recorded ? rows : undefined;
    });
    expect(Number(totals!.spent)).toBeGreaterThan(0);
    expect(Number(totals!.spent)).toBeLessThanOrEqual(capYuan * 1_000_000);
  });
});
