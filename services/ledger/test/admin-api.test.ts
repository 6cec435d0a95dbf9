import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

describe("admin API", () => {
  let ledger: LedgerUnderTest;
  beforeAll(async () => {
    ledger = await startLedger();
  });
  afterAll(async () => {
    expect(await ledger?.cleanUp()).toEqual([0]);
  });

  it("rejects a missing or wrong token with an OpenAI-shaped 401", async () => {
    for (const token of [null, "wrong-token-of-some-length", `${ledger.adminToken}x`, ""]) {
      const answer = await adminCall(ledger, "POST", "/accounts", { name: "mallory" }, token);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({
        error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "invalid_api_key" },
      });
    }
  });

  it("creates an account with its first key and opening credit", async () => {
    const created = await adminCall(ledger, "POST", "/accounts", { name: "alice", credit_yuan: "12.34" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "alice", group: "default", balance_micros: "12340000" });
    expect(created.body.api_key).toMatch(/^sk-gw-[0-9A-Za-z]{40}$/);
    expect(created.body.key_prefix).toBe(created.body.api_key.slice(0, 12));

    const balance = await adminCall(ledger, "GET", `/accounts/${created.body.account_id}`);
    expect(balance.body).toMatchObject({ account_id: created.body.account_id, balance_micros: "12340000" });
  });

  it("seeds an account with an operator-chosen key once, and refuses a revoked one", async () => {
    const apiKey = `demo-${"k".repeat(30)}`;
    const first = await adminCall(ledger, "POST", "/accounts", { name: "demo", group: "premium", api_key: apiKey });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ api_key: apiKey, group: "premium" });
    const again = await adminCall(ledger, "POST", "/accounts", { name: "demo", api_key: apiKey });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ account_id: first.body.account_id, key_id: first.body.key_id });
    expect((await adminCall(ledger, "POST", "/accounts", { name: "weak", api_key: "short" })).status).toBe(400);
    await adminCall(ledger, "POST", `/keys/${first.body.key_id}/revoke`);
    expect((await adminCall(ledger, "POST", "/accounts", { name: "demo", api_key: apiKey })).status).toBe(409);
  });

  it("adds a credit once per idempotency key and refuses reusing a key for another amount", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "bob" });
    const path = `/accounts/${account.account_id}/credits`;
    const first = await adminCall(ledger, "POST", path, { yuan: "0.1", idempotency_key: "x" });
    expect(first.status).toBe(400);
    expect(first.body.error.param).toBe("yuan");

    const credit = await adminCall(ledger, "POST", path, { yuan: "10.05", idempotency_key: "top-up-1" });
    expect(credit.status).toBe(201);
    expect(credit.body).toMatchObject({ amount_micros: "10050000", balance_micros: "10050000", replayed: false });

    const retry = await adminCall(ledger, "POST", path, { yuan: 10.05, idempotency_key: "top-up-1" });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ balance_micros: "10050000", replayed: true });

    const conflicting = await adminCall(ledger, "POST", path, { yuan: "11", idempotency_key: "top-up-1" });
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.error.code).toBe("idempotency_key_reused");
  });

  it("answers bad input with OpenAI-shaped 400 and unknown ids with 404", async () => {
    const unknownGroup = await adminCall(ledger, "POST", "/accounts", { name: "carol", group: "gold" });
    expect(unknownGroup.status).toBe(400);
    expect(unknownGroup.body.error).toMatchObject({ param: "group", message: expect.stringContaining("gold") });

    const noName = await adminCall(ledger, "POST", "/accounts", {});
    expect(noName.status).toBe(400);
    expect(noName.body.error.param).toBe("name");

    const notJson = await fetch(`${ledger.adminUrl}/admin/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${ledger.adminToken}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");

    for (const path of ["/accounts/00000000-0000-4000-8000-000000000000", "/accounts/not-a-uuid/keys"]) {
      const missing = await adminCall(ledger, "GET", path);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe("not_found");
    }
    const badLimit = await adminCall(ledger, "GET", "/accounts/00000000-0000-4000-8000-000000000000/usage?limit=0");
    expect([400, 404]).toContain(badLimit.status);
  });

  it("creates keys with an optional spending cap and lists cap, spending and last use", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "erin" });
    const path = `/accounts/${account.account_id}/keys`;
    for (const spend_cap_yuan of ["-1", "0.001", "ten", 1e12]) {
      const refused = await adminCall(ledger, "POST", path, { group: "default", spend_cap_yuan });
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe("spend_cap_yuan");
    }
    const capped = await adminCall(ledger, "POST", path, { group: "default", spend_cap_yuan: "12.5" });
    expect(capped.status).toBe(201);
    expect(capped.body).toMatchObject({ spend_cap_micros: "12500000", spent_micros: "0", last_used_at: null });
    const zero = await adminCall(ledger, "POST", path, { group: "default", spend_cap_yuan: 0 });
    expect(zero.body.spend_cap_micros).toBe("0");

    const { body: list } = await adminCall(ledger, "GET", path);
    const caps = Object.fromEntries(list.data.map((key: Record<string, string>) => [key.key_id, key.spend_cap_micros]));
    expect(caps).toEqual({ [account.key_id]: null, [capped.body.key_id]: "12500000", [zero.body.key_id]: "0" });
    expect(list.data[0]).toMatchObject({ spent_micros: "0", last_used_at: null });
  });

  it("sets an account's log capture, and back to the deployment's default", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "frank" });
    expect(account.log_capture).toBeNull();
    const path = `/accounts/${account.account_id}/log-capture`;
    for (const body of [{ log_capture: "everything" }, { log_capture: null }, {}]) {
      const refused = await adminCall(ledger, "PUT", path, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.param).toBe("log_capture");
    }
    const unknown = await adminCall(ledger, "PUT", "/accounts/00000000-0000-4000-8000-000000000000/log-capture", {
      log_capture: "off",
    });
    expect(unknown.status).toBe(404);

    for (const level of ["off", "full", "metadata"]) {
      const set = await adminCall(ledger, "PUT", path, { log_capture: level });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ account_id: account.account_id, log_capture: level });
      expect((await adminCall(ledger, "GET", `/accounts/${account.account_id}`)).body.log_capture).toBe(level);
    }
    expect((await adminCall(ledger, "PUT", path, { log_capture: "default" })).body.log_capture).toBeNull();
  });

  it("lists keys without hashes or clear keys", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "dave", group: "premium" });
    const { body: list } = await adminCall(ledger, "GET", `/accounts/${account.account_id}/keys`);
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ key_id: account.key_id, group: "premium", status: "active" });
    const text = JSON.stringify(list);
    expect(text).not.toContain(account.api_key);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });
});
