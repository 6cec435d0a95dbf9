import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { commandOutcome, queryRows } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEntry, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

const run = promisify(execFile);

// Each test runs several CLI processes one after another; on a busy 2-core machine each takes seconds to start.
describe("operator CLI", { timeout: 120_000 }, () => {
  let ledger: LedgerUnderTest;
  let stackDirectory: string;

  /** Runs `pnpm gw ...` the way the root script does, finding the API through .gateway/stack.json. */
  const gw = async (...args: string[]) => {
    const env = { ...process.env, GATEWAY_ADMIN_URL: "", GATEWAY_ADMIN_TOKEN: "", GATEWAY_ACTOR: "ops-alice" };
    return commandOutcome(run(process.execPath, [cliEntry, ...args], { cwd: stackDirectory, env }));
  };

  beforeAll(async () => {
    ledger = await startLedger();
    stackDirectory = await mkdtemp(join(tmpdir(), "gw-cli-"));
    await mkdir(join(stackDirectory, ".gateway"));
    await writeFile(
      join(stackDirectory, ".gateway", "stack.json"),
      JSON.stringify({ adminUrl: ledger.adminUrl, adminToken: ledger.adminToken }),
    );
  });
  afterAll(async () => {
    if (stackDirectory) await rm(stackDirectory, { recursive: true, force: true });
    expect(await ledger?.cleanUp()).toEqual([0]);
  });

  it("creates an account, creates, lists and revokes keys", async () => {
    const created = await gw("account", "create", "--name", "acme", "--credit", "20", "--json");
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(account).toMatchObject({ name: "acme", balance_micros: "20000000" });
    expect(account.api_key).toMatch(/^sk-gw-/);

    const key = await gw("key", "create", account.account_id, "--group", "premium", "--name", "batch", "--json");
    expect(key.code, key.stderr).toBe(0);
    const premium = JSON.parse(key.stdout);
    expect(premium).toMatchObject({ group: "premium", name: "batch" });
    expect(premium.key_id).toBeTruthy();
    expect(premium.api_key).toMatch(/^sk-gw-/);

    const revoked = await gw("key", "revoke", premium.key_id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain(premium.key_id);

    const listed = await gw("key", "list", account.account_id, "--json");
    const statuses = Object.fromEntries(
      JSON.parse(listed.stdout).data.map((entry: { key_id: string; status: string }) => [entry.key_id, entry.status]),
    );
    expect(statuses).toEqual({ [account.key_id]: "active", [premium.key_id]: "revoked" });

    const table = await gw("key", "list", account.account_id);
    expect(table.stdout).toContain(premium.key_id);
    expect(table.stdout).not.toContain(premium.api_key);

    const credited = await gw("credit", account.account_id, "5.5", "--idempotency-key", "cli-test");
    expect(credited.stdout).toContain("balance 25.500000 yuan");
    const again = await gw("credit", account.account_id, "5.5", "--idempotency-key", "cli-test");
    expect(again.stdout).toContain("balance 25.500000 yuan");

    const balance = await gw("balance", account.account_id, "--json");
    expect(JSON.parse(balance.stdout).balance_micros).toBe("25500000");
    expect((await gw("usage", account.account_id)).stdout).toContain("No usage yet.");
    expect(JSON.parse((await gw("usage", account.account_id, "--json")).stdout)).toEqual({
      object: "list",
      data: [],
      has_more: false,
      next_cursor: null,
    });
  });

  it("creates a key with a spending cap and shows cap, spending and last use in the list", async () => {
    const account = JSON.parse((await gw("account", "create", "--name", "capped", "--json")).stdout);
    const created = await gw("key", "create", account.account_id, "--group", "default", "--spend-cap", "7.25");
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("spending cap 7.250000 yuan");
    const table = (await gw("key", "list", account.account_id)).stdout;
    expect(table).toMatch(/CAP \(YUAN\)\s+SPENT \(YUAN\)\s+LAST USED/);
    expect(table).toMatch(/7\.250000\s+0\.000000\s+never/);
    expect(table).toMatch(/-\s+0\.000000\s+never/);
    const refused = await gw("key", "create", account.account_id, "--group", "default", "--spend-cap", "1.001");
    expect(refused.code).toBe(2);
  });

  it("creates keys that may read request logs only with --read-logs, and lists which may", async () => {
    const account = JSON.parse((await gw("account", "create", "--name", "logs", "--read-logs", "--json")).stdout);
    expect(account.read_logs).toBe(true);
    const reader = await gw("key", "create", account.account_id, "--group", "default", "--read-logs");
    expect(reader.stdout).toContain("reads request logs");
    const plain = JSON.parse((await gw("key", "create", account.account_id, "--group", "default", "--json")).stdout);
    expect(plain.read_logs).toBe(false);
    const table = (await gw("key", "list", account.account_id)).stdout;
    expect(table).toMatch(/LAST USED\s+LOGS/);
    expect(table.split("\n").find((line) => line.startsWith(plain.key_id))).toMatch(/never\s+-$/);
    expect(table.split("\n").filter((line) => /never\s+read$/.test(line))).toHaveLength(2);
  });

  it("sets an account's log capture and back to the deployment's default", async () => {
    const account = JSON.parse((await gw("account", "create", "--name", "logged", "--json")).stdout);
    const off = await gw("account", "log-capture", account.account_id, "off", "--json");
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ account_id: account.account_id, log_capture: "off" });
    const back = await gw("account", "log-capture", account.account_id, "default");
    expect(back.stdout).toContain("the deployment's default");
    expect(JSON.parse((await gw("balance", account.account_id, "--json")).stdout).log_capture).toBeNull();
    expect((await gw("account", "log-capture", account.account_id, "verbose")).code).toBe(2);
  });

  it("grants, lists and revokes console roles, and audits them and its credits as the operator who ran it", async () => {
    const granted = await gw("admin", "grant", "github:4242");
    expect(granted.code, granted.stderr).toBe(0);
    expect(granted.stdout).toContain("github:4242 is admin");
    const account = JSON.parse((await gw("account", "create", "--name", "support desk", "--json")).stdout);
    const support = JSON.parse((await gw("admin", "grant", account.account_id, "--role", "support", "--json")).stdout);
    expect(support).toMatchObject({ grantee: account.account_id, role: "support", granted_by: "cli:ops-alice" });
    const listed = JSON.parse((await gw("admin", "list", "--json")).stdout);
    expect(listed.data.map((grant: { grantee: string }) => grant.grantee)).toEqual(["github:4242", account.account_id]);
    expect((await gw("admin", "list")).stdout).toMatch(/GRANTEE\s+ROLE\s+GRANTED BY\s+GRANTED/);
    expect((await gw("admin", "revoke", "github:4242")).stdout).toContain("github:4242 is no longer admin");
    expect((await gw("admin", "revoke", "github:4242")).stdout).toContain("github:4242 had no role");
    expect((await gw("admin", "grant", "nobody")).code).toBe(1);

    await gw("credit", account.account_id, "3");
    const audit = await queryRows<{
      action: string;
      actor: string;
      actor_role: string;
      after: { balanceMicros?: string };
    }>(
      ledger.database.url,
      "SELECT action, actor, actor_role, after FROM ledger.audit_log WHERE account_id = $1 ORDER BY at",
      [account.account_id],
    );
    expect(audit).toEqual([
      expect.objectContaining({ action: "role.grant", actor: "cli:ops-alice", actor_role: "admin" }),
      expect.objectContaining({
        action: "account.credit",
        after: expect.objectContaining({ balanceMicros: "3000000" }),
      }),
    ]);
  });

  it("prints the API's error and exits non-zero", async () => {
    const created = await gw("account", "create", "--name", "x", "--json");
    const accountId = JSON.parse(created.stdout).account_id;
    const failed = await gw("key", "create", accountId, "--group", "platinum");
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("Unknown model group `platinum`");
  });

  it("explains bad arguments with the usage text and exit code 2", async () => {
    for (const args of [["frobnicate"], ["key", "create", "--group", "default"], ["credit", "some-id", "1.234"]]) {
      const failed = await gw(...args);
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain("Usage: pnpm gw");
    }
  });

  it("runs through ./scripts/gw from any directory, finding the stack through GATEWAY_HOME", async () => {
    const wrapper = fileURLToPath(new URL("../../../scripts/gw", import.meta.url));
    const env = { ...process.env, GATEWAY_ADMIN_URL: "", GATEWAY_ADMIN_TOKEN: "", GATEWAY_HOME: stackDirectory };
    const { stdout } = await run(wrapper, ["account", "create", "--name", "from-anywhere", "--json"], {
      cwd: tmpdir(),
      env,
    });
    expect(JSON.parse(stdout)).toMatchObject({ name: "from-anywhere" });
  });

  it("pages through usage with --cursor and reads every page with --all", async () => {
    const account = JSON.parse((await gw("account", "create", "--name", "pager", "--json")).stdout);
    await queryRows(
      ledger.database.url,
      `INSERT INTO ledger.usage_records (request_id, account_id, key_id, model, vendor, channel, endpoint,
         prompt_tokens, completion_tokens, total_tokens, estimated, outcome, cost_micros, latency_ms, stream, started_at, created_at)
       SELECT 'page-' || i, $1::uuid, (SELECT id FROM ledger.api_keys WHERE account_id = $1::uuid LIMIT 1), 'gpt-4o-mini',
         'openai', 'openai-main', '/v1/chat/completions', 1, 1, 2, false, 'ok', 10, 5, false,
         now() - make_interval(secs => i), now() - make_interval(secs => i)
       FROM generate_series(1, 5) AS i`,
      [account.account_id],
    );
    const ids = (answer: { data: Array<{ request_id: string }> }) => answer.data.map((row) => row.request_id);
    const first = JSON.parse((await gw("usage", account.account_id, "--limit", "2", "--json")).stdout);
    expect(ids(first)).toEqual(["page-1", "page-2"]);
    expect(first.has_more).toBe(true);
    const second = JSON.parse(
      (await gw("usage", account.account_id, "--limit", "2", "--cursor", first.next_cursor, "--json")).stdout,
    );
    expect(ids(second)).toEqual(["page-3", "page-4"]);
    expect((await gw("usage", account.account_id, "--limit", "2")).stdout).toContain("--cursor ");
    const all = JSON.parse((await gw("usage", account.account_id, "--limit", "2", "--all", "--json")).stdout);
    expect(ids(all)).toEqual(["page-1", "page-2", "page-3", "page-4", "page-5"]);
    expect(all).toMatchObject({ has_more: false, next_cursor: null });
    expect((await gw("usage", account.account_id, "--cursor", "not-a-cursor")).stderr).toContain("next_cursor");
  });

  it("makes prepaid codes shown once, lists batches and their codes, and revokes the unused", async () => {
    const created = await gw(
      "code",
      "create",
      "--amount",
      "12.5",
      "--count",
      "3",
      "--expires",
      "2099-12-31",
      "--note",
      "fair",
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("shown once");
    const codes = created.stdout.split("\n").filter((line) => line.startsWith("GW-"));
    expect(codes).toHaveLength(3);

    const json = JSON.parse((await gw("code", "create", "--amount", "1", "--count", "1", "--json")).stdout);
    expect(json).toMatchObject({ amount_micros: "1000000", count: 1, expires_at: null, redeemed: 0 });
    expect(json.codes[0]).toMatch(/^GW(-[0-9A-Z]{5}){5}$/);

    const batches = JSON.parse((await gw("code", "list", "--json")).stdout);
    const fair = batches.data.find((batch: { note: string }) => batch.note === "fair");
    expect(fair).toMatchObject({ amount_micros: "12500000", count: 3, expires_at: "2099-12-31T23:59:59.999Z" });
    expect((await gw("code", "list")).stdout).toContain(fair.batch_id);

    const revokedOne = JSON.parse((await gw("code", "revoke", codes[0]!, "--json")).stdout);
    expect(revokedOne.revoked_code_ids).toHaveLength(1);
    expect((await gw("code", "revoke", fair.batch_id)).stdout).toBe("Revoked 2 unused codes.\n");
    const listed = await gw("code", "list", fair.batch_id);
    expect(listed.stdout.match(/revoked/g)).toHaveLength(3);
    expect(listed.stdout).not.toContain(codes[1]);

    // Audited as the CLI's, with what changed; a revoked code is named by its prefix, never in clear.
    const audit = await queryRows<{
      action: string;
      actor: string;
      actor_role: string;
      target: string;
      after: unknown;
    }>(
      ledger.database.url,
      "SELECT action, actor, actor_role, target, before, after FROM ledger.audit_log WHERE target = ANY($1) ORDER BY at, id",
      [[fair.batch_id, codes[0]!.slice(0, 8)]],
    );
    const cli = { actor: "cli:ops-alice", actor_role: "admin" };
    expect(audit).toEqual([
      {
        ...cli,
        action: "code.create",
        target: fair.batch_id,
        before: null,
        after: { amountMicros: "12500000", count: 3, expiresAt: "2099-12-31T23:59:59.999Z", note: "fair" },
      },
      {
        ...cli,
        action: "code.revoke",
        target: codes[0]!.slice(0, 8),
        before: { unused: revokedOne.revoked_code_ids },
        after: { revoked: revokedOne.revoked_code_ids },
      },
      {
        ...cli,
        action: "code.revoke",
        target: fair.batch_id,
        before: { unused: expect.any(Array) },
        after: { revoked: expect.any(Array) },
      },
    ]);
    expect((audit[2]!.after as { revoked: string[] }).revoked).toHaveLength(2);

    // Two batches so far, newest first: paged one at a time, or all at once.
    const first = JSON.parse((await gw("code", "list", "--limit", "1", "--json")).stdout);
    expect(first.data[0].batch_id).toBe(json.batch_id);
    expect((await gw("code", "list", "--limit", "1")).stdout).toContain("--cursor ");
    const second = JSON.parse(
      (await gw("code", "list", "--limit", "1", "--cursor", first.next_cursor, "--json")).stdout,
    );
    expect(second.data[0].batch_id).toBe(fair.batch_id);
    const all = JSON.parse((await gw("code", "list", "--limit", "1", "--all", "--json")).stdout);
    expect(all.data.map((batch: { batch_id: string }) => batch.batch_id)).toEqual(
      batches.data.map((batch: { batch_id: string }) => batch.batch_id),
    );

    const refused = await gw("code", "create", "--amount", "0.5", "--count", "1");
    expect(refused.code).toBe(2);
    expect((await gw("code", "create", "--amount", "5", "--count", "1001")).stderr).toContain("1 to 1000");
  });
});
