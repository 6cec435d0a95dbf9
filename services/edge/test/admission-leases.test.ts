import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  accountBill,
  balanceMicrosOf,
  eventually,
  msUntilRefused,
  openReservations,
  repoRoot,
  startTwoRouterStack,
  type TestStack,
  vendorRequestsByRouter as vendorRequestsOf,
} from "@gateway/stack";
import OpenAI, { AuthenticationError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Two routers admitting from admission leases (ROUTER_ADMISSION_LEASE_MAX_MICROS), behind one
// edge that alternates between them. The groups set no limits here, so their requests are
// admitted from leases rather than reserved one by one in Redis.
const leaseMaxMicros = 5_000n;
let stack: TestStack;
const catalogueDirectory = mkdtempSync(join(tmpdir(), "gw-leases-"));

beforeAll(async () => {
  const cataloguePath = join(catalogueDirectory, "models.yaml");
  const shipped = readFileSync(join(repoRoot, "infra/catalogue/models.yaml"), "utf8");
  writeFileSync(cataloguePath, shipped.replace(/^\s+limits: .*\n/gm, ""));
  stack = await startTwoRouterStack(
    {
      CATALOGUE_PATH: cataloguePath,
      ROUTER_ADMISSION_LEASE_MAX_MICROS: String(leaseMaxMicros),
      ROUTER_ADMISSION_LEASE_MS: "1000",
    },
    "premium",
  );
}, 120_000);
afterAll(async () => {
  await stack?.teardown();
  rmSync(catalogueDirectory, { recursive: true, force: true });
}, 60_000);

const clientFor = (apiKey: string) => new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });

const vendorRequestsByRouter = () => vendorRequestsOf(stack);

const spend = (apiKey: string) =>
  fetch(`${stack.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      max_tokens: 100,
      messages: [{ role: "user", content: "spend [sim:tokens=100]" }],
    }),
  });

/** How many admission leases the account's reservations hold (the ids router gives them). */
const leasesHeld = async (accountId: string) =>
  Object.keys(await openReservations(stack.redisUrl, stack.namespace, accountId)).filter((id) =>
    id.startsWith("lease:"),
  ).length;

const admin = (path: string) =>
  fetch(`${stack.adminUrl}/admin${path}`, { method: "POST", headers: { authorization: `Bearer ${stack.adminToken}` } });

describe("admission leases with two routers", () => {
  it("keeps a 200-way race through both routers within the balance plus one lease per router, and bills it exactly", async () => {
    // One request's worst case is about 660 micro-yuan (premium's 1.5x): 0.02 yuan covers about 30.
    const account = await stack.createAccount({ group: "premium", creditYuan: 0.02 });
    const initial = await balanceMicrosOf(stack.databaseUrl, account.account_id);
    // A few in turn first, so both routers hold leases sized by the account's spend when the race starts.
    const warm = [];
    for (let index = 0; index < 6; index += 1) warm.push(await spend(account.api_key));
    expect(warm.map((response) => response.status)).toEqual(Array(6).fill(200));
    const before = await vendorRequestsByRouter();
    const answers = await Promise.all(Array.from({ length: 200 }, () => spend(account.api_key)));
    const after = await vendorRequestsByRouter();
    const served = [...warm, ...answers.filter((response) => response.status === 200)];
    const refused = answers.filter((response) => response.status !== 200);
    for (const refusal of refused) {
      expect({ status: refusal.status, body: await refusal.json() }).toMatchObject({
        status: 429,
        body: { error: { code: "insufficient_quota" } },
      });
    }
    expect(refused.length).toBeGreaterThan(0);
    for (const [replica, count] of after.entries()) expect(count).toBeGreaterThan(before[replica]!);

    // Exact: one record per served request, and the balance down by exactly their sum.
    const servedIds = served.map((response) => response.headers.get("x-request-id")!);
    const {
      requestIds,
      billed,
      balance: final,
      worstCase,
    } = await accountBill(stack.databaseUrl, account.account_id, served.length);
    expect(requestIds).toEqual([...servedIds].sort());
    expect(initial - final).toBe(billed);
    console.log(
      `admission leases: ${served.length} served of 206, balance ${initial} → ${final} micro-yuan, bound ${-(2n * leaseMaxMicros + worstCase)}`,
    );
    // The stated bound: at most one lease per router (and, as without leases, one request's worst case).
    expect(final).toBeGreaterThanOrEqual(-(2n * leaseMaxMicros + worstCase));
    // Every lease is handed back or settled: nothing stays reserved once the account is idle.
    await eventually(
      async () =>
        Object.keys(await openReservations(stack.redisUrl, stack.namespace, account.account_id)).length === 0
          ? true
          : undefined,
      10_000,
    );
  });

  it.each([
    ["a revoked key", (account: { key_id: string }) => `/keys/${account.key_id}/revoke`],
    ["a disabled account's key", (account: { account_id: string }) => `/accounts/${account.account_id}/disable`],
  ])("stops %s within 2 s although both routers hold leases of its account", async (_, path) => {
    const account = await stack.createAccount({ group: "premium", creditYuan: 10 });
    for (let index = 0; index < 6; index += 1) expect((await spend(account.api_key)).status).toBe(200);
    expect(await leasesHeld(account.account_id)).toBeGreaterThan(0);
    expect((await admin(path(account))).ok).toBe(true);
    const client = clientFor(account.api_key);
    const ask = () =>
      client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(await msUntilRefused(ask, (error) => error instanceof AuthenticationError)).toBeLessThan(2_000);
  });
});
