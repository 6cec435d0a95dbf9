import { randomBytes } from "node:crypto";
import { startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, signInWithGithub, signInWithOidc } from "./browser.js";

const run = randomBytes(4).toString("hex");
const adminLogin = `ops-${run}`;
const FAILURES_PER_ACCOUNT = 5;
const FAILURES_PER_ADDRESS = 80;
let stack: TestStack;
let consoleUrl: string;
const admin = new Browser();
const customer = new Browser();

const api = (browser: Browser, path: string, method = "GET", body?: unknown) =>
  browser.api(`${consoleUrl}/api${path}`, method, body);
const balance = async (browser: Browser) => (await api(browser, "/session")).body.account.balanceMicros as number;
const wrongCode = () =>
  `GW-${randomBytes(16)
    .toString("hex")
    .toUpperCase()
    .replace(/[ILOU]/g, "0")
    .slice(0, 25)}`;

async function newCustomer(name: string) {
  const browser = new Browser();
  await signInWithGithub(browser, consoleUrl, `${name}-${run}`);
  return browser;
}

/** The audit log's entries for an action, newest first, as the console's audit page reads them. */
async function audited(action: string, filter = "") {
  const page = await api(admin, `/admin/audit?action=${action}${filter}`);
  expect(page.status).toBe(200);
  return page.body.entries as { actor: string; actorAccountId: string; actorRole: string; target: string }[];
}
const byAdmin = async () => ({
  actor: `oidc:${adminLogin}`,
  actorAccountId: (await api(admin, "/session")).body.account.id,
  actorRole: "admin",
});

async function createBatch(amountFen: number, count: number, note = "test") {
  const created = await api(admin, "/admin/codes", "POST", { amountFen, count, note });
  expect(created.status).toBe(201);
  return created.body as { batch: { batchId: string; count: number }; codes: string[]; csv: string };
}

beforeAll(async () => {
  stack = await startTestStack({
    console: true,
    serviceEnv: {
      console: {
        CONSOLE_ADMIN_IDENTITIES: `oidc:${adminLogin}`,
        CONSOLE_REDEEM_FAILURES_PER_ACCOUNT: String(FAILURES_PER_ACCOUNT),
        CONSOLE_REDEEM_FAILURES_PER_ADDRESS: String(FAILURES_PER_ADDRESS),
        // The admin's check, not the job, is what asks the provider here.
        CONSOLE_RECONCILE_AFTER_MS: "600000",
      },
    },
  });
  consoleUrl = stack.consoleUrl!;
  await signInWithOidc(admin, consoleUrl, adminLogin);
  await signInWithGithub(customer, consoleUrl, `customer-${run}`);
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
});

describe("prepaid codes in the console", () => {
  it("lets only an admin make, list and revoke codes", async () => {
    for (const [method, path] of [
      ["POST", "/admin/codes"],
      ["GET", "/admin/codes"],
      ["POST", "/admin/codes/revoke"],
      ["GET", "/admin/orders"],
      ["GET", "/admin/overview"],
    ] as const) {
      const refused = await api(customer, path, method, method === "POST" ? {} : undefined);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("not_admin");
    }
  });

  it("makes a batch whose codes come once with their CSV, and a customer's redemption is a paid top-up", async () => {
    const { batch, codes, csv } = await createBatch(500, 3, "launch");
    expect(batch.count).toBe(3);
    expect(csv.split("\r\n")[0]).toBe("code,yuan,expiresAt,note");
    for (const code of codes) expect(csv).toContain(`${code},5,,launch`);

    const before = await balance(customer);
    const redeemed = await api(customer, "/topups/redeem", "POST", { code: codes[0] });
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.order).toMatchObject({ provider: "code", state: "paid", amountFen: 500 });
    expect(await balance(customer)).toBe(before + 5_000_000);
    const topUps = (await api(customer, "/topups")).body.orders as { outTradeNo: string; provider: string }[];
    expect(topUps[0]).toMatchObject({ outTradeNo: redeemed.body.order.outTradeNo, provider: "code" });

    const again = await api(customer, "/topups/redeem", "POST", { code: codes[0] });
    expect(again.status).toBe(404);

    const listed = await api(admin, `/admin/codes/${batch.batchId}`);
    expect(listed.body.batch).toMatchObject({ redeemed: 1, revoked: 0 });
    const revoked = await api(admin, "/admin/codes/revoke", "POST", { target: batch.batchId });
    expect(revoked.body.revokedCodeIds).toHaveLength(2);
    // Both changes are in the audit log under the admin who made them, with what changed.
    const operator = await byAdmin();
    expect((await audited("code.create")).find((entry) => entry.target === batch.batchId)).toMatchObject({
      ...operator,
      before: null,
      after: { amountMicros: "5000000", count: 3, expiresAt: null, note: "launch" },
    });
    expect((await audited("code.revoke", `&actor=${operator.actor}`))[0]).toMatchObject({
      ...operator,
      target: batch.batchId,
      before: { unused: revoked.body.revokedCodeIds },
      after: { revoked: revoked.body.revokedCodeIds },
    });
    const exported = await admin.request(`${consoleUrl}/api/admin/codes/${batch.batchId}/csv`);
    expect(exported.headers.get("content-type")).toContain("text/csv");
    const lines = (await exported.text()).trim().split("\r\n");
    expect(lines).toHaveLength(4);
    expect(
      lines
        .slice(1)
        .map((line) => line.split(",")[2])
        .sort(),
    ).toEqual(["redeemed", "revoked", "revoked"]);
    // The export names codes by prefix only.
    for (const code of codes) expect(lines.join("\n")).not.toContain(code);
    expect((await api(customer, "/topups/redeem", "POST", { code: codes[1] })).status).toBe(404);
  });

  it("credits a code once when ten signed-in sessions redeem it fifty times at the same moment", async () => {
    const { codes } = await createBatch(1200, 1);
    const sessions = await Promise.all(Array.from({ length: 10 }, (_, index) => newCustomer(`racer${index}`)));
    const before = await Promise.all(sessions.map(balance));
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, attempt) =>
        api(sessions[attempt % 10]!, "/topups/redeem", "POST", { code: codes[0] }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 404)).toHaveLength(49);
    const gained = (await Promise.all(sessions.map(balance))).map((micros, index) => micros - before[index]!);
    expect(gained.filter((micros) => micros !== 0)).toEqual([12_000_000]);
  });

  it("throttles wrong guesses per account with 429 and Retry-After, even for a right code", async () => {
    const guesser = await newCustomer("guesser");
    const { codes } = await createBatch(100, 1);
    for (let guess = 0; guess < FAILURES_PER_ACCOUNT; guess += 1) {
      expect((await api(guesser, "/topups/redeem", "POST", { code: wrongCode() })).status).toBe(404);
    }
    const refused = await guesser.request(`${consoleUrl}/api/topups/redeem`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": guesser.csrfToken },
      body: JSON.stringify({ code: codes[0] }),
    });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("too_many_attempts");
    // Another account is not held back by this one's guesses, and the code was not spent.
    expect((await api(customer, "/topups/redeem", "POST", { code: codes[0] })).status).toBe(200);
  });

  it("lets no group of accounts behind one untrusted address lock redemption for everyone else", async () => {
    // Without CONSOLE_TRUSTED_PROXIES every customer behind the ingress has its address: enough
    // accounts guessing to fill the address's allowance must not refuse the next customer's code.
    const guessers = await Promise.all(
      Array.from({ length: FAILURES_PER_ADDRESS / FAILURES_PER_ACCOUNT }, (_, index) => newCustomer(`shared${index}`)),
    );
    for (const guesser of guessers) {
      for (let guess = 0; guess < FAILURES_PER_ACCOUNT; guess += 1) {
        expect((await api(guesser, "/topups/redeem", "POST", { code: wrongCode() })).status).toBe(404);
      }
    }
    const { codes } = await createBatch(100, 1);
    const bystander = await newCustomer("bystander");
    expect((await api(bystander, "/topups/redeem", "POST", { code: codes[0] })).status).toBe(200);
  });

  it("holds a burst of simultaneous wrong guesses to the limit", async () => {
    const burster = await newCustomer("burster");
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api(burster, "/topups/redeem", "POST", { code: wrongCode() })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(FAILURES_PER_ACCOUNT).fill(404), ...Array(20 - FAILURES_PER_ACCOUNT).fill(429)]);
  });
});

describe("every order in the console", () => {
  it("filters every account's orders by method, state and date, and checks an unpaid one at its provider", async () => {
    const buyer = await newCustomer("buyer");
    const accountId = (await api(buyer, "/session")).body.account.id as string;
    const placed = await api(buyer, "/topups", "POST", { provider: "alipay", amountFen: 300 });
    expect(placed.status).toBe(201);
    const { order, payment } = placed.body as { order: { outTradeNo: string }; payment: { qrCode: string } };
    const { codes } = await createBatch(200, 1);
    expect((await api(buyer, "/topups/redeem", "POST", { code: codes[0] })).status).toBe(200);

    const list = async (query: string) =>
      (await api(admin, `/admin/orders?account=${accountId}&${query}`)).body.orders as {
        outTradeNo: string;
        provider: string;
        state: string;
        accountId: string;
      }[];
    expect((await list("")).map((listed) => listed.provider)).toEqual(["code", "alipay"]);
    expect((await list("method=alipay")).map((listed) => listed.outTradeNo)).toEqual([order.outTradeNo]);
    expect((await list("state=paid")).map((listed) => listed.provider)).toEqual(["code"]);
    expect(await list("method=wechat")).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await list(`from=${today}&to=${today}`)).toHaveLength(2);
    expect(await list("to=2020-01-01")).toEqual([]);
    expect((await api(admin, "/admin/orders?state=lost")).status).toBe(400);
    const firstPage = await api(admin, `/admin/orders?account=${accountId}&limit=1`);
    const secondPage = await api(
      admin,
      `/admin/orders?account=${accountId}&limit=1&cursor=${firstPage.body.nextCursor}`,
    );
    expect(secondPage.body.orders[0].outTradeNo).toBe(order.outTradeNo);

    const waiting = await api(admin, `/admin/orders/${order.outTradeNo}/check`, "POST");
    expect(waiting.body).toMatchObject({ result: "waiting", order: { state: "created", accountId } });
    // Paid, with the notification held back: only the admin's check can find out.
    const paid = await fetch(payment.qrCode, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ fault: "late", delay_ms: "600000" }).toString(),
    });
    expect(paid.status).toBe(200);
    const checked = await api(admin, `/admin/orders/${order.outTradeNo}/check`, "POST");
    expect(checked.body).toMatchObject({ result: "recorded", order: { state: "paid" } });
    expect((await api(admin, `/admin/orders/${order.outTradeNo}/check`, "POST")).body.result).toBe("final");
    expect(await balance(buyer)).toBe(5_000_000);
    // Each check audited, newest first: the one that recorded the payment with the order's state before and after.
    const operator = await byAdmin();
    expect(await audited("order.check", `&accountId=${accountId}`)).toEqual([
      expect.objectContaining({ ...operator, before: { state: "paid" }, after: { state: "paid", result: "final" } }),
      expect.objectContaining({
        ...operator,
        target: order.outTradeNo,
        before: { state: "created" },
        after: { state: "paid", result: "recorded", outcome: "credited" },
      }),
      expect.objectContaining({
        ...operator,
        before: { state: "created" },
        after: { state: "created", result: "waiting" },
      }),
    ]);
  });
});

describe("operations at a glance in the console", () => {
  it("shows today's top-ups among thirty days, with top lists and channel error rates", async () => {
    const overview = (await api(admin, "/admin/overview")).body;
    expect(overview.days).toHaveLength(30);
    const today = overview.days.at(-1);
    expect(today.day).toBe(new Date().toISOString().slice(0, 10));
    expect(today.topUpMicros).toBeGreaterThanOrEqual(5_000_000 + 12_000_000 + 1_000_000);
    expect(Array.isArray(overview.topAccounts) && Array.isArray(overview.topModels)).toBe(true);
    expect((await api(admin, "/admin/overview?from=2026-02-01&to=2026-01-01")).status).toBe(400);
  });
});
