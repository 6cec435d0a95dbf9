import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountCall, adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

// Text with NUL characters and dates Postgres cannot hold are the client's 400s (never a 500),
// in the admin API (and so the CLI, which calls it) and in the account API.

let ledger: LedgerUnderTest;
let account: { account_id: string; key_id: string; api_key: string };

beforeAll(async () => {
  ledger = await startLedger();
  // A key that may read request logs, so the logs routes check their input.
  account = (await adminCall(ledger, "POST", "/accounts", { name: "bounds", group: "default", read_logs: true })).body;
});
afterAll(async () => {
  await ledger?.cleanUp();
});

const cursorOf = (position: unknown) => Buffer.from(JSON.stringify(position)).toString("base64url");

describe("admin API", () => {
  it.each([
    ["an account name with NUL", "/accounts", { name: "a\u0000b", group: "default" }, "name"],
    ["a group with NUL", "/accounts", { name: "ok", group: "def\u0000ault" }, "group"],
  ])("answers 400 for %s", async (_case, path, body, param) => {
    const answer = await adminCall(ledger, "POST", path, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe(param);
  });

  it.each([
    ["a key name with NUL", { group: "default", name: "k\u0000" }, "name"],
    ["an expiry in year 0", { group: "default", expires_at: "0000-06-01T00:00:00Z" }, "expires_at"],
    [
      "an expiry past year 9999 by its offset",
      { group: "default", expires_at: "9999-12-31T23:00:00-14:00" },
      "expires_at",
    ],
  ])("answers 400 for %s", async (_case, body, param) => {
    const answer = await adminCall(ledger, "POST", `/accounts/${account.account_id}/keys`, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe(param);
  });

  it("answers 400 for a credit idempotency key with NUL", async () => {
    const answer = await adminCall(ledger, "POST", `/accounts/${account.account_id}/credits`, {
      yuan: 1,
      idempotency_key: "top-up\u0000",
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe("idempotency_key");
  });

  it("still creates a key with a sane expiry", async () => {
    const answer = await adminCall(ledger, "POST", `/accounts/${account.account_id}/keys`, {
      group: "default",
      expires_at: "2999-01-01T00:00:00+08:00",
    });
    expect(answer.status).toBe(201);
    expect(answer.body.expires_at).toBe("2998-12-31T16:00:00.000Z");
  });
});

describe("account API", () => {
  it.each([
    ["a model filter with NUL", "/usage?model=gpt%00", "model"],
    ["a model filter over 256 characters", `/logs?model=${"m".repeat(257)}`, "model"],
    ["a date filter in year 0", "/logs?from=0000-01-01T00:00:00Z", "from"],
    ["a date filter past year 9999", "/usage?to=9999-12-31T23:59:59-12:00", "to"],
    ["a statistics day in year 0", "/statistics?from=0000-01-01", "from"],
    ["a logs cursor whose id has NUL", `/logs?cursor=${cursorOf(["2030-01-01T00:00:00.000Z", "req\u0000"])}`, "cursor"],
    ["a cursor dated year 0", `/logs?cursor=${cursorOf(["0000-01-01T00:00:00.000Z", "req_1"])}`, "cursor"],
  ])("answers 400 for %s", async (_case, path, param) => {
    const answer = await accountCall(ledger, account.api_key, path);
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe(param);
  });

  it("answers 404 for a log id with NUL, like any unknown id", async () => {
    const answer = await accountCall(ledger, account.api_key, "/logs/req%00x");
    expect(answer.status).toBe(404);
  });

  it("answers 404 repeating only the start of a very long log id", async () => {
    const answer = await accountCall(ledger, account.api_key, `/logs/${"r".repeat(8000)}`);
    expect(answer.status).toBe(404);
    expect(answer.body.error.message.length).toBeLessThan(200);
  });
});
