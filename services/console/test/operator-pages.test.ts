import { randomBytes } from "node:crypto";
import { msUntilRefused, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI, { AuthenticationError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, signInWithGithub, signInWithOidc } from "./browser.js";

// Operators through the console's HTTP API on the whole stack: roles granted at run time, an
// account disabled (its key refused by edge, its sessions ended) and enabled, every change in
// the audit log.

const run = randomBytes(4).toString("hex");
const adminLogin = `root-${run}`;
const supportLogin = `helper-${run}`;
let stack: TestStack;
let consoleUrl: string;
const admin = new Browser();
const support = new Browser();
const customer = new Browser();
let customerId: string;

beforeAll(async () => {
  stack = await startTestStack({
    console: true,
    serviceEnv: { console: { CONSOLE_ADMIN_IDENTITIES: `oidc:${adminLogin}` } },
  });
  consoleUrl = stack.consoleUrl!;
  await signInWithOidc(admin, consoleUrl, adminLogin);
  customerId = (await signInWithGithub(customer, consoleUrl, `customer-${run}`)).session.account.id;
  await signInWithGithub(support, consoleUrl, supportLogin);
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
});

const api = (browser: Browser, path: string, method = "GET", body?: unknown) =>
  browser.api(`${consoleUrl}/api${path}`, method, body);

describe("operators in the console", { timeout: 120_000 }, () => {
  it("lets the bootstrap admin grant support at run time; support reads and credits but cannot grant or regroup", async () => {
    expect((await api(admin, "/session")).body).toMatchObject({ isAdmin: true, role: "admin" });
    const supportIdentity = (await api(support, "/session")).body.identities[0];
    const grantee = `${supportIdentity.provider}:${supportIdentity.subject}`;
    expect((await api(customer, "/admin/roles", "POST", { grantee, role: "admin" })).status).toBe(403);
    // Without the session's CSRF token a grant is refused before anything else.
    const forged = await admin.api(
      `${consoleUrl}/api/admin/roles`,
      "POST",
      { grantee, role: "admin" },
      {
        "x-csrf-token": "forged",
      },
    );
    expect(forged).toMatchObject({ status: 403, body: { error: { code: "csrf_failed" } } });
    const granted = await api(admin, "/admin/roles", "POST", { grantee, role: "support" });
    expect(granted).toMatchObject({ status: 200, body: { grantee, role: "support" } });

    expect((await api(support, "/session")).body).toMatchObject({ isAdmin: true, role: "support" });
    expect((await api(support, "/admin/roles")).body.grants).toEqual([expect.objectContaining({ grantee })]);
    const refused = await api(support, "/admin/roles", "POST", { grantee: "github:someone", role: "admin" });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "admin_only" } } });
    expect((await api(support, `/admin/accounts/${customerId}/group`, "PUT", { group: "premium" })).status).toBe(403);

    const found = await api(support, `/admin/accounts?query=${encodeURIComponent(`customer-${run}`)}`);
    expect(found.body.accounts.map((account: { id: string }) => account.id)).toEqual([customerId]);
    const credited = await api(support, `/admin/accounts/${customerId}/credit`, "POST", {
      amountMicros: 3_000_000,
      reason: "ticket 12",
    });
    expect(credited).toMatchObject({ status: 200, body: { balanceMicros: 3_000_000 } });
  });

  it("refuses support changing an administrator's account or its own, each refusal audited", async () => {
    const adminId = (await api(admin, "/session")).body.account.id;
    const supportId = (await api(support, "/session")).body.account.id;
    const refusals = [
      await api(support, `/admin/accounts/${adminId}/disable`, "POST"),
      await api(support, `/admin/accounts/${adminId}/credit`, "POST", { amountMicros: 1_000, reason: "x" }),
      await api(support, `/admin/accounts/${supportId}/credit`, "POST", { amountMicros: 1_000_000_000, reason: "me" }),
      await api(support, `/admin/accounts/${supportId}/disable`, "POST"),
    ];
    for (const refused of refusals)
      expect(refused).toMatchObject({ status: 403, body: { error: { code: "admin_only" } } });
    expect((await api(admin, "/session")).status).toBe(200);
    expect((await api(admin, `/admin/accounts/${supportId}`)).body.account.balanceMicros).toBe(0);
    const audit = await api(admin, `/admin/audit?accountId=${adminId}`);
    expect(audit.body.entries.map((entry: { action: string }) => entry.action)).toEqual(
      expect.arrayContaining(["account.disable.refused", "account.adjust_credit.refused"]),
    );
  });

  it("disables an account: its key gets 401 from edge within 2 s, its sessions end, it cannot sign in; enabling restores the key", async () => {
    const created = await api(customer, "/keys", "POST", { name: "to-disable", group: "default" });
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: created.body.apiKey, maxRetries: 0 });
    await client.models.list();

    const disabled = await api(admin, `/admin/accounts/${customerId}/disable`, "POST");
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabledAt).not.toBeNull();
    expect(
      await msUntilRefused(
        () => client.models.list(),
        (error) => error instanceof AuthenticationError,
      ),
    ).toBeLessThan(2_000);
    expect((await api(customer, "/session")).status).toBe(401);
    const again = await signInWithGithub(customer, consoleUrl, `customer-${run}`);
    expect(again.landedAt).toContain("error=account_disabled");

    const view = await api(admin, `/admin/accounts/${customerId}`);
    expect(view.body).toMatchObject({
      account: { id: customerId, balanceMicros: 3_000_000 },
      identities: [expect.objectContaining({ provider: "github" })],
      keys: [expect.objectContaining({ name: "to-disable" })],
    });
    expect((await api(admin, `/admin/accounts/${customerId}/enable`, "POST")).body.disabledAt).toBeNull();
    await expect
      .poll(
        () =>
          client.models.list().then(
            () => "served",
            () => "refused",
          ),
        { timeout: 5_000 },
      )
      .toBe("served");

    const regrouped = await api(admin, `/admin/accounts/${customerId}/group`, "PUT", { group: "premium" });
    expect(regrouped.body).toMatchObject({ group: "premium" });
    const capture = await api(admin, `/admin/accounts/${customerId}/log-capture`, "PUT", { logCapture: "metadata" });
    expect(capture.body).toMatchObject({ logCapture: "metadata" });
  });

  it("bounds every range-taking route whatever range parameters are left out", async () => {
    const [pastDay, futureDay] = ["1970-01-01", "2100-01-01"];
    const [pastTime, futureTime] = ["1970-01-01T00:00:00Z", "2100-01-01T00:00:00Z"];
    const days = ["/statistics", "/admin/overview"];
    const times = ["/usage", "/logs", "/usage.csv", "/admin/audit", "/admin/audit.csv", "/admin/orders"];
    times.push(`/admin/accounts/${customerId}/usage`, `/admin/accounts/${customerId}/logs`);
    const ranges = (from: string, to: string): Record<string, string>[] => [{}, { from }, { to }, { from, to }];
    const cases = [
      ...days.flatMap((path) => ranges(pastDay, futureDay).map((range) => [path, range] as const)),
      ...times.flatMap((path) => ranges(pastTime, futureTime).map((range) => [path, range] as const)),
    ];
    for (const [path, range] of cases) {
      const query = new URLSearchParams(range).toString();
      const response = await admin.request(`${consoleUrl}/api${path}?${query}`);
      const text = await response.text();
      const label = `${path}?${query}`;
      expect([200, 400], label).toContain(response.status);
      // A day per row at most a year and a day, a page at most 500 rows: a bounded answer.
      expect(text.length, label).toBeLessThan(400_000);
    }
    const unbounded = await api(admin, `/statistics?from=${pastDay}`);
    expect(unbounded).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining("366 days") } } });
  });

  it("keeps every action in the audit log, filterable and exportable as CSV", async () => {
    const entries = await api(admin, `/admin/audit?accountId=${customerId}`);
    expect(entries.body.entries.map((entry: { action: string }) => entry.action)).toEqual([
      "account.set_log_capture",
      "account.set_group",
      "account.enable",
      "account.disable",
      "account.adjust_credit",
    ]);
    const credit = entries.body.entries.at(-1);
    expect(credit).toMatchObject({
      actorRole: "support",
      before: { balanceMicros: "0" },
      after: { balanceMicros: "3000000", reason: "ticket 12" },
    });
    const grants = await api(support, "/admin/audit?action=role.grant");
    expect(grants.body.entries).toEqual([
      expect.objectContaining({
        actor: `oidc:${adminLogin}`,
        actorRole: "admin",
        after: expect.objectContaining({ role: "support" }),
      }),
    ]);
    const csv = await admin.request(`${consoleUrl}/api/admin/audit.csv?accountId=${customerId}`);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toBe("at,actor,actorRole,action,accountId,target,before,after");
    expect(lines).toHaveLength(6);
    expect(lines[5]).toContain("account.adjust_credit");
    expect((await api(customer, "/admin/audit")).status).toBe(401);
  });
});
