import {
  accountBill,
  awayFromLimitWindowEdge,
  msUntilRefused,
  openReservations,
  queryRows,
  startTwoRouterStack,
  type TestStack,
  temporaryCatalogueWithLimits,
  vendorRequestsByRouter as vendorRequestsOf,
} from "@gateway/stack";
import OpenAI, { AuthenticationError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Two routers admitting from admission leases (ROUTER_ADMISSION_LEASE_MAX_MICROS) behind one
// edge that alternates between them, with limits on both groups: the leases hold slices of the
// rate windows and concurrency slots as well as of the balance, and no limit may be passed.
// Default group: 50 requests a minute; premium: 3 requests at once.
const leaseMaxMicros = 5_000n;
let stack: TestStack;
let catalogue: ReturnType<typeof temporaryCatalogueWithLimits>;

beforeAll(async () => {
  catalogue = temporaryCatalogueWithLimits({
    default: { requests_per_minute: 50, tokens_per_minute: 50_000_000, concurrent_requests: 1024 },
    premium: { requests_per_minute: 100_000, tokens_per_minute: 50_000_000, concurrent_requests: 3 },
  });
  stack = await startTwoRouterStack(
    {
      CATALOGUE_PATH: catalogue.path,
      ROUTER_ADMISSION_LEASE_MAX_MICROS: String(leaseMaxMicros),
      ROUTER_ADMISSION_LEASE_MS: "1000",
    },
    "premium",
  );
}, 120_000);
afterAll(async () => {
  await stack?.teardown();
  catalogue?.remove();
}, 60_000);

const clientFor = (apiKey: string) => new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });

const post = (apiKey: string, content: string, extra: Record<string, unknown> = {}) =>
  fetch(`${stack.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 100, messages: [{ role: "user", content }], ...extra }),
  });

async function expectRefusals(answers: Response[], code: string) {
  for (const refusal of answers.filter((response) => response.status !== 200)) {
    expect({ status: refusal.status, body: await refusal.json() }).toMatchObject({
      status: 429,
      body: { error: { code } },
    });
  }
}

const admin = (path: string) =>
  fetch(`${stack.adminUrl}/admin${path}`, { method: "POST", headers: { authorization: `Bearer ${stack.adminToken}` } });

describe("admission leases under limits with two routers", () => {
  it("admits no more than the group's requests per minute in a 200-way race through both routers", async () => {
    await awayFromLimitWindowEdge();
    const account = await stack.createAccount({ creditYuan: 10 });
    // A few in turn first, so both routers hold leases sized by the key's recent requests.
    for (let index = 0; index < 6; index += 1) expect((await post(account.api_key, `warm ${index}`)).status).toBe(200);
    const before = await vendorRequestsOf(stack);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) => post(account.api_key, `race ${index}`)),
    );
    const after = await vendorRequestsOf(stack);
    const served = 6 + answers.filter((response) => response.status === 200).length;
    console.log(`rate-limited race with leases: ${served} of 206 served, limit 50`);
    expect(served).toBeLessThanOrEqual(50);
    expect(after.reduce((sum, count) => sum + count, 0) - before.reduce((sum, count) => sum + count, 0)).toBe(
      served - 6,
    );
    for (const [replica, count] of after.entries()) expect(count).toBeGreaterThan(before[replica]!);
    await expectRefusals(answers, "rate_limit_exceeded");
  });

  it("never holds more streams open than the concurrency limit in a 200-way race through both routers", async () => {
    const account = await stack.createAccount({ group: "premium", creditYuan: 10 });
    // About four seconds each: every stream admitted in the race is still open when the race ends.
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const response = await post(account.api_key, `slow ${index} [sim:tokens=40] [sim:token_latency_ms=100]`, {
          stream: true,
        });
        const openedAt = Date.now();
        if (response.status !== 200) return { response, openedAt, endedAt: Number.POSITIVE_INFINITY };
        await response.text();
        return { response, openedAt, endedAt: Date.now() };
      }),
    );
    const served = answers.filter(({ response }) => response.status === 200);
    // Streams opened before the first one ended were all open at once.
    const firstEnd = Math.min(...served.map(({ endedAt }) => endedAt));
    const atOnce = served.filter(({ openedAt }) => openedAt < firstEnd).length;
    console.log(`concurrency race with leases: ${served.length} of 200 served, ${atOnce} open at once, limit 3`);
    expect(atOnce).toBeGreaterThan(0);
    expect(atOnce).toBeLessThanOrEqual(3);
    await expectRefusals(
      answers.map(({ response }) => response),
      "rate_limit_exceeded",
    );
  });

  it("never lets a capped key spend past its cap in a 200-way race through both routers, and bills it exactly", async () => {
    await awayFromLimitWindowEdge();
    const account = await stack.createAccount({ creditYuan: 100 });
    // One request's worst case is about 440 micro-yuan: 0.01 yuan covers about 22, under the 50 a minute.
    const capMicros = 10_000n;
    const created = await fetch(`${stack.adminUrl}/admin/accounts/${account.account_id}/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ group: "default", name: "capped", spend_cap_yuan: "0.01" }),
    });
    expect(created.status).toBe(201);
    const capped = (await created.json()) as { key_id: string; api_key: string };
    const warm = [];
    for (let index = 0; index < 4; index += 1) warm.push(await post(capped.api_key, "spend [sim:tokens=100]"));
    expect(warm.map((response) => response.status)).toEqual(Array(4).fill(200));
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => post(capped.api_key, "spend [sim:tokens=100]")),
    );
    const served = [...warm, ...answers.filter((response) => response.status === 200)];
    await expectRefusals(answers, "insufficient_quota");
    const { requestIds, billed, worstCase } = await accountBill(stack.databaseUrl, account.account_id, served.length);
    expect(requestIds).toEqual(served.map((response) => response.headers.get("x-request-id")!).sort());
    const [key] = await queryRows<{ spent: string }>(
      stack.databaseUrl,
      "SELECT spent_micros AS spent FROM ledger.api_keys WHERE id = $1",
      [capped.key_id],
    );
    expect(BigInt(key!.spent)).toBe(billed);
    console.log(`capped key race with leases: ${served.length} of 204 served, spent ${billed} of cap ${capMicros}`);
    // The stated bound: the cap plus one lease per router and one request's worst case (docs/operations.md).
    expect(billed).toBeLessThanOrEqual(capMicros + 2n * leaseMaxMicros + worstCase);
  });

  it.each([
    ["a revoked key", (account: { key_id: string }) => `/keys/${account.key_id}/revoke`],
    ["a disabled account's key", (account: { account_id: string }) => `/accounts/${account.account_id}/disable`],
  ])("stops %s of a limited group within 2 s although both routers hold leases of it", async (_, path) => {
    await awayFromLimitWindowEdge();
    const account = await stack.createAccount({ creditYuan: 10 });
    for (let index = 0; index < 6; index += 1) expect((await post(account.api_key, `warm ${index}`)).status).toBe(200);
    const leases = Object.keys(await openReservations(stack.redisUrl, stack.namespace, account.account_id));
    expect(leases.filter((id) => id.startsWith("lease:")).length).toBeGreaterThan(0);
    expect((await admin(path(account))).ok).toBe(true);
    const client = clientFor(account.api_key);
    const ask = () =>
      client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(await msUntilRefused(ask, (error) => error instanceof AuthenticationError)).toBeLessThan(2_000);
  });
});
