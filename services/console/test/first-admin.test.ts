import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { commandOutcome, queryRows, serviceEntry } from "@gateway/stack";
import { describe, expect, it } from "vitest";
import { Browser, refreshSession, signInWithGithub, signInWithOidc } from "./browser.js";
import { consoleTestStack } from "./console-test-stack.js";

// `pnpm gw admin grant --first` on the whole stack: people sign in through the console (the
// simulator's GitHub, the local OpenID provider), the CLI offers whoever signed in last, grants
// only on confirmation, once, and the audit names the operator who ran it.

const run = randomBytes(4).toString("hex");
const execute = promisify(execFile);
const running = consoleTestStack();

/** The CLI as an operator runs it, without a terminal (as in a script or CI). */
async function gw(...args: string[]) {
  const { stack } = running;
  const env = {
    PATH: process.env.PATH,
    GATEWAY_ADMIN_URL: stack.adminUrl,
    GATEWAY_ADMIN_TOKEN: stack.adminToken,
    GATEWAY_ACTOR: `ops-${run}`,
  };
  return commandOutcome(execute(process.execPath, [serviceEntry.cli, ...args], { env }));
}

const grants = () =>
  queryRows<{ grantee: string; role: string }>(
    running.stack.databaseUrl,
    "SELECT grantee, role FROM ledger.admin_roles",
  );

describe("gw admin grant --first", { timeout: 120_000 }, () => {
  it("says so, and grants nothing, before anyone has signed in", async () => {
    const before = await gw("admin", "grant", "--first", "--yes");
    expect(before.code).toBe(1);
    expect(before.stderr).toContain("No one has signed in to the console yet");
    expect(await grants()).toEqual([]);
  });

  it("offers the sign-in used last, grants it only when confirmed, and audits the operator", async () => {
    const operator = new Browser();
    const signedIn = await signInWithGithub(operator, running.consoleUrl, `operator-${run}`);
    const [identity] = signedIn.session.identities as { provider: string; subject: string }[];
    const grantee = `${identity!.provider}:${identity!.subject}`;
    // Someone else signs in after the operator's first sign-in; the operator's next one is the latest.
    await signInWithOidc(new Browser(), running.consoleUrl, `customer-${run}`);
    await signInWithGithub(operator, running.consoleUrl, `operator-${run}`);
    expect(signedIn.session.isAdmin).toBe(false);

    const unconfirmed = await gw("admin", "grant", "--first", "--json");
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stdout).toBe("");
    expect(unconfirmed.stderr).toContain(
      `The first console administrator would be ${grantee} (Simulated operator-${run}`,
    );
    expect(unconfirmed.stderr).toContain(`account ${signedIn.session.account.id}`);
    expect(unconfirmed.stderr).toContain("nothing granted: confirm with --yes");
    expect(await grants()).toEqual([]);

    const granted = await gw("admin", "grant", "--first", "--yes", "--json");
    expect(granted.code, granted.stderr).toBe(0);
    expect(JSON.parse(granted.stdout)).toMatchObject({ grantee, role: "admin", granted_by: `cli:ops-${run}` });
    expect(await grants()).toEqual([{ grantee, role: "admin" }]);
    expect((await refreshSession(operator, running.consoleUrl)).session).toMatchObject({
      isAdmin: true,
      role: "admin",
    });

    const [audit] = await queryRows<{ actor: string; actor_role: string; account_id: string; target: string }>(
      running.stack.databaseUrl,
      "SELECT actor, actor_role, account_id, target FROM ledger.audit_log WHERE action = 'role.grant'",
    );
    expect(audit).toEqual({
      actor: `cli:ops-${run}`,
      actor_role: "admin",
      account_id: signedIn.session.account.id,
      target: grantee,
    });
  });

  it("is refused once an admin exists, naming it", async () => {
    await signInWithGithub(new Browser(), running.consoleUrl, `late-${run}`);
    const again = await gw("admin", "grant", "--first", "--yes");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("error (HTTP 409)");
    expect(again.stderr).toContain("already has an administrator");
    expect((await grants()).length).toBe(1);
  });

  it("makes one admin when two confirmations race", async () => {
    await queryRows(running.stack.databaseUrl, "DELETE FROM ledger.admin_roles");
    const candidates = await queryRows<{ grantee: string }>(
      running.stack.databaseUrl,
      "SELECT provider || ':' || subject AS grantee FROM ledger.sign_in_identities ORDER BY grantee",
    );
    expect(candidates.length).toBeGreaterThanOrEqual(2);
    const confirm = (grantee: string) =>
      fetch(`${running.stack.adminUrl}/admin/roles/first`, {
        method: "POST",
        headers: { authorization: `Bearer ${running.stack.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ grantee }),
      }).then((response) => response.status);
    const statuses = await Promise.all(candidates.map(({ grantee }) => confirm(grantee)));
    expect(statuses.sort()).toEqual([200, ...candidates.slice(1).map(() => 409)]);
    expect((await grants()).length).toBe(1);
  });
});
