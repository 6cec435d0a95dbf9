import { createHash, randomUUID } from "node:crypto";
import { callUnary, insecureChannel, natsNames } from "@gateway/platform";
import { KeyRevoked } from "@gateway/proto/events/v1/events";
import { AdminServiceClient } from "@gateway/proto/ledger/v1/admin";
import { ConsoleServiceClient } from "@gateway/proto/ledger/v1/console";
import { KeyStatus, LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { queryRows, testClientOptions, testServers } from "@gateway/stack";
import { status } from "@grpc/grpc-js";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LedgerUnderTest, startLedger } from "./ledger-under-test.js";
import { type Promised, promisedClient } from "./promised-client.js";

let ledger: LedgerUnderTest;
let clients: { close(): void }[];
let admin: Promised<AdminServiceClient>;
let consoleCalls: Promised<ConsoleServiceClient>;
let edge: Promised<LedgerServiceClient>;

const adminApi = async (method: "GET" | "POST", path: string, body?: unknown) => {
  const response = await fetch(`${ledger.adminUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ledger.adminToken}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const auditOf = (accountId: string) =>
  queryRows<{ action: string; actor: string; actor_role: string; before: unknown; after: unknown }>(
    ledger.database.url,
    "SELECT action, actor, actor_role, before, after FROM ledger.audit_log WHERE account_id = $1 ORDER BY at, id",
    [accountId],
  );

beforeAll(async () => {
  ledger = await startLedger();
  const asConsole = testClientOptions("console");
  const adminClient = new AdminServiceClient(ledger.grpcAddress, insecureChannel(), asConsole);
  const consoleClient = new ConsoleServiceClient(ledger.grpcAddress, insecureChannel(), asConsole);
  const edgeClient = new LedgerServiceClient(ledger.grpcAddress, insecureChannel(), testClientOptions("edge"));
  clients = [adminClient, consoleClient, edgeClient];
  admin = promisedClient(adminClient, 20_000);
  consoleCalls = promisedClient(consoleClient, 20_000);
  edge = promisedClient(edgeClient, 20_000);
});
afterAll(async () => {
  for (const client of clients ?? []) client.close();
  expect(await ledger?.cleanUp()).toEqual([0]);
});

const signIn = async (subject: string, displayName: string, email?: string) =>
  (await consoleCalls.findOrCreateAccountByIdentity({ provider: "github", subject, displayName, email })).account!
    .accountId;

describe("AdminService and operators' roles", () => {
  it("answers only the console", async () => {
    const asEdge = new AdminServiceClient(ledger.grpcAddress, insecureChannel(), testClientOptions("edge"));
    try {
      await expect(callUnary(asEdge.listRoles.bind(asEdge), {}, 5_000)).rejects.toMatchObject({
        code: status.PERMISSION_DENIED,
      });
    } finally {
      asEdge.close();
    }
  });

  it("grants the first admin through the admin API, to a sign-in not seen yet, and audits grant and revoke", async () => {
    const subject = randomUUID();
    const granted = await adminApi("POST", "/roles", { grantee: `github:${subject}` });
    expect(granted).toMatchObject({
      status: 200,
      body: { grantee: `github:${subject}`, role: "admin", granted_by: "cli" },
    });
    const accountId = await signIn(subject, "first admin");
    expect(await admin.getRole({ accountId })).toEqual({ role: "admin" });

    // A support grant on the account id itself does not weaken the admin grant of its sign-in.
    const actor = { accountId, identity: `github:${subject}`, role: "admin" };
    const helper = await signIn(randomUUID(), "helper");
    expect(await admin.getRole({ accountId: helper })).toEqual({ role: "" });
    await admin.grantRole({ actor, grantee: helper, role: "support" });
    expect(await admin.getRole({ accountId: helper })).toEqual({ role: "support" });
    expect((await admin.listRoles({})).grants.map(({ grantee, role }) => [grantee, role])).toEqual(
      expect.arrayContaining([
        [`github:${subject}`, "admin"],
        [helper, "support"],
      ]),
    );
    const revoked = await admin.revokeRole({ actor, grantee: helper });
    expect(revoked).toMatchObject({ grantee: helper, role: "support" });
    expect(await admin.getRole({ accountId: helper })).toEqual({ role: "" });
    expect((await admin.revokeRole({ actor, grantee: helper })).grantee).toBe("");

    expect(await auditOf(helper)).toEqual([
      expect.objectContaining({ action: "role.grant", actor: `github:${subject}`, actor_role: "admin", before: null }),
      expect.objectContaining({ action: "role.revoke", after: null }),
    ]);
    // A grant to a sign-in already used is filed under the account it reaches.
    const colleagueSubject = randomUUID();
    const colleague = await signIn(colleagueSubject, "colleague");
    await admin.grantRole({ actor, grantee: `github:${colleagueSubject}`, role: "support" });
    expect(await admin.getRole({ accountId: colleague })).toEqual({ role: "support" });
    expect(await auditOf(colleague)).toEqual([expect.objectContaining({ action: "role.grant" })]);
    const listed = await adminApi("GET", "/roles");
    expect(listed.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ grantee: `github:${subject}` })]),
    );
  });

  it("refuses a change without its actor, an unknown role and a malformed grantee", async () => {
    await expect(admin.grantRole({ actor: undefined, grantee: "github:1", role: "admin" })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    const actor = { accountId: "", identity: "github:1", role: "admin" };
    await expect(admin.grantRole({ actor, grantee: "github:1", role: "owner" })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    await expect(admin.grantRole({ actor, grantee: "nobody", role: "admin" })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    expect((await adminApi("POST", "/roles", { grantee: "x" })).status).toBe(400);
  });
});

describe("operators' changes to an account", () => {
  const actor = { accountId: "", identity: "github:operator", role: "support" };

  it("disables an account: its keys resolve as revoked and every edge is told; enabling brings them back", async () => {
    const accountId = await signIn(randomUUID(), "to disable");
    const { apiKey } = await consoleCalls.createKey({
      accountId,
      name: "k",
      group: "",
      expiresAtMs: 0,
      readLogs: false,
    });
    const keyHash = createHash("sha256").update(apiKey).digest("hex");
    expect((await edge.resolveKey({ keyHash })).status).toBe(KeyStatus.KEY_STATUS_ACTIVE);

    const nats = await connect({ servers: testServers.natsUrl });
    try {
      const announced = nats.subscribe(natsNames(ledger.namespace).keyRevokedSubject, { max: 1 });
      await nats.flush();
      const disabled = await admin.setAccountDisabled({ actor, accountId, disabled: true, targetIsAdmin: false });
      expect(disabled.disabledAtMs).toBeGreaterThan(0);
      for await (const message of announced) expect(KeyRevoked.decode(message.data).keyHash).toBe(keyHash);
    } finally {
      await nats.close();
    }
    expect((await edge.resolveKey({ keyHash })).status).toBe(KeyStatus.KEY_STATUS_REVOKED);
    // Disabling twice changes nothing and writes no second entry.
    await admin.setAccountDisabled({ actor, accountId, disabled: true, targetIsAdmin: false });
    expect(
      (await admin.setAccountDisabled({ actor, accountId, disabled: false, targetIsAdmin: false })).disabledAtMs,
    ).toBe(0);
    expect((await edge.resolveKey({ keyHash })).status).toBe(KeyStatus.KEY_STATUS_ACTIVE);
    expect((await auditOf(accountId)).map(({ action }) => action)).toEqual(["account.disable", "account.enable"]);
  });

  it("lets the CLI enable an account support or an admin disabled, audited as cli", async () => {
    const accountId = await signIn(randomUUID(), "locked out");
    const support = { accountId: "", identity: "github:operator", role: "support" };
    await admin.setAccountDisabled({ actor: support, accountId, disabled: true, targetIsAdmin: false });
    const enabled = await adminApi("POST", `/accounts/${accountId}/enable`);
    expect(enabled).toMatchObject({ status: 200, body: { account_id: accountId, disabled_at: null } });
    expect((await admin.getAccountStatus({ accountId })).disabledAtMs).toBe(0);
    const disabled = await adminApi("POST", `/accounts/${accountId}/disable`);
    expect(disabled.body.disabled_at).toEqual(expect.any(String));
    expect((await auditOf(accountId)).map(({ action, actor }) => [action, actor])).toEqual([
      ["account.disable", "github:operator"],
      ["account.enable", "cli"],
      ["account.disable", "cli"],
    ]);
  });

  it("refuses support changing its own account or an administrator's, and audits each refusal", async () => {
    const supportAccount = await signIn(randomUUID(), "support person");
    const adminAccount = await signIn(randomUUID(), "an admin");
    const customer = await signIn(randomUUID(), "a customer");
    const byAdmin = { accountId: "", identity: "cli", role: "admin" };
    await admin.grantRole({ actor: byAdmin, grantee: adminAccount, role: "admin" });
    const support = { accountId: supportAccount, identity: "github:support-person", role: "support" };
    const credit = (accountId: string, targetIsAdmin = false) =>
      consoleCalls.adjustCredit({
        accountId,
        amountMicros: 1_000_000_000,
        reason: "r",
        actor: support.identity,
        actorRole: "support",
        actorAccountId: supportAccount,
        idempotencyKey: randomUUID(),
        targetIsAdmin,
      });
    const disable = (accountId: string, targetIsAdmin = false) =>
      admin.setAccountDisabled({ actor: support, accountId, disabled: true, targetIsAdmin });
    const refused = { code: status.PERMISSION_DENIED };
    await expect(credit(supportAccount)).rejects.toMatchObject(refused);
    await expect(disable(adminAccount)).rejects.toMatchObject(refused);
    await expect(credit(adminAccount)).rejects.toMatchObject(refused);
    // An administrator known only to the console's bootstrap list, as the console says.
    await expect(disable(customer, true)).rejects.toMatchObject(refused);
    expect((await auditOf(supportAccount)).map(({ action }) => action)).toEqual(["account.adjust_credit.refused"]);
    expect((await auditOf(adminAccount)).map(({ action }) => action)).toEqual([
      "role.grant",
      "account.disable.refused",
      "account.adjust_credit.refused",
    ]);
    expect((await admin.getAccountStatus({ accountId: adminAccount })).disabledAtMs).toBe(0);
    await credit(customer);
    expect((await disable(customer)).disabledAtMs).toBeGreaterThan(0);
    await admin.setAccountDisabled({ actor: byAdmin, accountId: adminAccount, disabled: true, targetIsAdmin: true });
  });

  it("moves an account's keys into a group and sets its log capture, audited with before and after", async () => {
    const accountId = await signIn(randomUUID(), "regrouped");
    const { apiKey } = await consoleCalls.createKey({
      accountId,
      name: "k",
      group: "",
      expiresAtMs: 0,
      readLogs: false,
    });
    const keyHash = createHash("sha256").update(apiKey).digest("hex");
    expect(await edge.resolveKey({ keyHash })).toMatchObject({ modelGroup: "default", multiplierBasisPoints: 10000 });
    expect(await admin.setAccountGroup({ actor, accountId, group: "premium" })).toMatchObject({ group: "premium" });
    expect(await edge.resolveKey({ keyHash })).toMatchObject({ modelGroup: "premium", multiplierBasisPoints: 15000 });
    await expect(admin.setAccountGroup({ actor, accountId, group: "nope" })).rejects.toMatchObject({
      code: status.INVALID_ARGUMENT,
    });
    expect(await admin.setAccountLogCapture({ actor, accountId, logCapture: "off" })).toMatchObject({
      logCapture: "off",
      group: "premium",
    });
    expect(await auditOf(accountId)).toEqual([
      expect.objectContaining({
        action: "account.set_group",
        before: { defaultGroup: null },
        after: { defaultGroup: "premium" },
      }),
      expect.objectContaining({
        action: "account.set_log_capture",
        before: { logCapture: null },
        after: { logCapture: "off" },
      }),
    ]);
  });

  it("audits a credit adjustment with the balance before and after, once however often it is retried", async () => {
    const accountId = await signIn(randomUUID(), "credited");
    const adjustment = {
      accountId,
      amountMicros: 4_000_000,
      reason: "refund",
      actor: "github:operator",
      actorRole: "support",
      actorAccountId: "",
      idempotencyKey: randomUUID(),
      targetIsAdmin: false,
    };
    await consoleCalls.adjustCredit(adjustment);
    await consoleCalls.adjustCredit(adjustment);
    expect(await auditOf(accountId)).toEqual([
      {
        action: "account.adjust_credit",
        actor: "github:operator",
        actor_role: "support",
        before: { balanceMicros: "0" },
        after: { balanceMicros: "4000000", amountMicros: "4000000", reason: "refund" },
      },
    ]);
  });

  it("finds accounts by name, sign-in email, id and key prefix", async () => {
    const tag = randomUUID().slice(0, 8);
    const accountId = await signIn(randomUUID(), `searchable ${tag}`, `${tag}@example.com`);
    const { key } = await consoleCalls.createKey({ accountId, name: "k", group: "", expiresAtMs: 0, readLogs: false });
    for (const query of [`SEARCHABLE ${tag}`, `${tag}@example`, accountId, key!.keyPrefix]) {
      const found = await admin.searchAccounts({ query, limit: 50, cursor: "" });
      expect(
        found.accounts.map((account) => account.accountId),
        query,
      ).toContain(accountId);
    }
    expect((await admin.searchAccounts({ query: `no such ${tag}`, limit: 50, cursor: "" })).accounts).toEqual([]);
  });

  it("lists the audit log filtered by actor, account, action and time, page by page, and keeps it append-only", async () => {
    const accountId = await signIn(randomUUID(), "audited");
    const other = { accountId, identity: "github:other-operator", role: "admin" };
    await admin.setAccountDisabled({ actor: other, accountId, disabled: true, targetIsAdmin: false });
    await admin.setAccountDisabled({ actor: other, accountId, disabled: false, targetIsAdmin: false });
    await admin.setAccountLogCapture({ actor: other, accountId, logCapture: "metadata" });
    const list = (filter: Partial<Parameters<typeof admin.listAuditEntries>[0]>) =>
      admin.listAuditEntries({
        actor: "",
        accountId: "",
        action: "",
        fromMs: 0,
        toMs: 0,
        limit: 0,
        cursor: "",
        ...filter,
      });

    const byActor = await list({ actor: "github:other-operator" });
    expect(byActor.entries.map(({ action }) => action)).toEqual([
      "account.set_log_capture",
      "account.enable",
      "account.disable",
    ]);
    expect((await list({ actor: accountId })).entries).toHaveLength(3);
    expect((await list({ accountId, action: "account.enable" })).entries).toHaveLength(1);
    expect((await list({ accountId, action: "account." })).entries).toHaveLength(3);
    expect((await list({ accountId, fromMs: Date.now() + 60_000 })).entries).toEqual([]);
    const first = await list({ accountId, limit: 2 });
    const second = await list({ accountId, limit: 2, cursor: first.nextCursor });
    expect([...first.entries, ...second.entries].map(({ action }) => action)).toEqual(
      byActor.entries.map(({ action }) => action),
    );
    expect(JSON.parse(first.entries[0]!.afterJson)).toEqual({ logCapture: "metadata" });
    await expect(
      queryRows(ledger.database.url, "DELETE FROM ledger.audit_log WHERE account_id = $1", [accountId]),
    ).rejects.toThrow(/append-only/);
  });
});
