import { randomUUID } from "node:crypto";
import { natsNames } from "@gateway/platform";
import { LogCapture } from "@gateway/proto/common/v1/common";
import { RequestLog, UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import { eventually, queryRows, testServers } from "@gateway/stack";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountCall, adminCall, type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

interface Account {
  account_id: string;
  key_id: string;
  api_key: string;
}

/** A usage record as these tests insert it (the consumer's own path is covered by usage.test.ts). */
interface UsageRow {
  request_id: string;
  account_id: string;
  key_id: string;
  model: string;
  outcome: string;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cost_micros: string;
  created_at: string;
}

const MODELS = ["gpt-4o-mini", "claude-sonnet", "qwen-max"];
const start = Date.parse("2030-03-01T12:00:00.000Z");

/** `count` records, three to each millisecond-exact time (so pages split ties), one in five failed. */
function usageRows(account: Account, otherKeyId: string, count: number): UsageRow[] {
  return Array.from({ length: count }, (_, index) => ({
    request_id: `${account.account_id.slice(0, 8)}-${index}`,
    account_id: account.account_id,
    key_id: index % 4 === 0 ? otherKeyId : account.key_id,
    model: MODELS[index % MODELS.length]!,
    outcome: index % 5 === 0 ? "vendor_error" : "ok",
    error_code: index % 5 === 0 ? "upstream_error" : null,
    prompt_tokens: 10 + index,
    completion_tokens: index % 5 === 0 ? 0 : 5,
    cost_micros: String(100 + index),
    created_at: new Date(start + Math.floor(index / 3) * 1_000).toISOString(),
  }));
}

describe("account API", () => {
  let ledger: LedgerUnderTest;
  let alice: Account;
  let aliceSecondKey: { key_id: string; api_key: string };
  let bob: Account;
  let aliceRows: UsageRow[];
  let bobRows: UsageRow[];

  const sql = (text: string, params: unknown[] = []) => queryRows(ledger.database.url, text, params);

  const insertUsage = (rows: UsageRow[]) =>
    sql(
      `INSERT INTO ledger.usage_records (request_id, account_id, key_id, model, vendor, channel, endpoint,
         prompt_tokens, completion_tokens, total_tokens, estimated, outcome, error_code, cost_micros, latency_ms,
         stream, started_at, created_at)
       SELECT r.request_id, r.account_id::uuid, r.key_id::uuid, r.model, 'sim', 'sim-main', '/v1/chat/completions',
         r.prompt_tokens, r.completion_tokens, r.prompt_tokens + r.completion_tokens, false, r.outcome, r.error_code,
         r.cost_micros::bigint, 250, false, r.created_at::timestamptz - interval '1 second', r.created_at::timestamptz
       FROM jsonb_to_recordset($1::jsonb) AS r(request_id text, account_id text, key_id text, model text,
         outcome text, error_code text, prompt_tokens int, completion_tokens int, cost_micros text, created_at text)`,
      [JSON.stringify(rows)],
    );

  const insertLog = (
    row: UsageRow,
    log: { capture: string; request?: string; response?: string; truncated?: boolean; error?: string },
  ) =>
    sql(
      `INSERT INTO ledger.request_logs (request_id, account_id, capture, request_body, response_body, truncated,
         error_message, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        row.request_id,
        row.account_id,
        log.capture,
        log.request ?? null,
        log.response ?? null,
        log.truncated ?? false,
        log.error ?? null,
        row.created_at,
      ],
    );

  /** Follows next_cursor from `path` to the end, checking every page's shape. */
  const allPages = async (apiKey: string, path: string) => {
    const pages: Array<{ data: Array<Record<string, unknown>>; has_more: boolean }> = [];
    let cursor: string | null = null;
    do {
      const separator = path.includes("?") ? "&" : "?";
      const answer = await accountCall(ledger, apiKey, cursor ? `${path}${separator}cursor=${cursor}` : path);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toMatchObject({ object: "list", has_more: expect.any(Boolean) });
      expect(answer.body.next_cursor === null).toBe(!answer.body.has_more);
      pages.push(answer.body);
      cursor = answer.body.next_cursor;
    } while (cursor);
    return { pages, data: pages.flatMap((page) => page.data) };
  };

  const requestIds = (data: Array<Record<string, unknown>>) => data.map((entry) => entry.request_id);
  // Newest first; equal times by request id, descending, as the log list orders them.
  const newestFirst = (rows: UsageRow[]) =>
    [...rows]
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.request_id.localeCompare(a.request_id))
      .map((row) => row.request_id);

  beforeAll(async () => {
    ledger = await startLedger();
    // Their first keys may read the request logs; alice's second key may not.
    alice = (await adminCall(ledger, "POST", "/accounts", { name: "alice", credit_yuan: "12.34", read_logs: true }))
      .body;
    aliceSecondKey = (await adminCall(ledger, "POST", `/accounts/${alice.account_id}/keys`, { group: "premium" })).body;
    bob = (await adminCall(ledger, "POST", "/accounts", { name: "bob", read_logs: true })).body;
    aliceRows = usageRows(alice, aliceSecondKey.key_id, 120);
    bobRows = usageRows(bob, bob.key_id, 6);
    await insertUsage([...aliceRows, ...bobRows]);
  });
  afterAll(async () => {
    expect(await ledger?.cleanUp()).toEqual([0]);
  });

  it("refuses a missing, unknown, revoked or expired key with an OpenAI-shaped 401", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", { name: "mallory" });
    const { body: expired } = await adminCall(ledger, "POST", `/accounts/${account.account_id}/keys`, {
      group: "default",
      expires_at: new Date(Date.now() - 1_000).toISOString(),
    });
    await adminCall(ledger, "POST", `/keys/${account.key_id}/revoke`);
    const refused = [null, "sk-gw-unknown", account.api_key, expired.api_key, ledger.adminToken];
    for (const apiKey of refused) {
      const answer = await accountCall(ledger, apiKey, "/balance");
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({
        error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "invalid_api_key" },
      });
    }
    expect((await accountCall(ledger, account.api_key, "/usage")).body.error.message).toContain("revoked");
    expect((await accountCall(ledger, expired.api_key, "/logs")).body.error.message).toContain("expired");
  });

  it("answers the balance in micro-yuan and in yuan, with any of the account's keys", async () => {
    for (const apiKey of [alice.api_key, aliceSecondKey.api_key]) {
      const answer = await accountCall(ledger, apiKey, "/balance");
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        object: "balance",
        account_id: alice.account_id,
        balance_micros: "12340000",
        balance_yuan: "12.340000",
      });
    }
  });

  it("pages through usage newest first, 50 by default, without gaps or repeats across equal times", async () => {
    const { pages, data } = await allPages(alice.api_key, "/usage");
    expect(pages.map((page) => page.data.length)).toEqual([50, 50, 20]);
    expect(pages.map((page) => page.has_more)).toEqual([true, true, false]);
    expect(new Set(requestIds(data))).toEqual(new Set(aliceRows.map((row) => row.request_id)));
    expect(data).toHaveLength(aliceRows.length);
    const times = data.map((entry) => entry.created_at as string);
    expect(times).toEqual([...times].sort().reverse());
    expect(data[0]).toMatchObject({
      model: expect.any(String),
      key_id: expect.any(String),
      cost_micros: expect.stringMatching(/^\d+$/),
      outcome: expect.any(String),
      latency_ms: 250,
    });
  });

  it("filters usage by model, key and period, across pages of any size", async () => {
    const model = "claude-sonnet";
    const byModelAndKey = await allPages(alice.api_key, `/usage?model=${model}&key_id=${alice.key_id}&limit=7`);
    expect(byModelAndKey.pages.length).toBeGreaterThan(1);
    expect(requestIds(byModelAndKey.data)).toEqual(
      newestFirst(aliceRows.filter((row) => row.model === model && row.key_id === alice.key_id)),
    );

    // Records 30..59 by time: from is inclusive, to exclusive.
    const from = aliceRows[30]!.created_at;
    const to = aliceRows[60]!.created_at;
    const byPeriod = await allPages(aliceSecondKey.api_key, `/usage?from=${from}&to=${to}&limit=500`);
    expect(byPeriod.pages).toHaveLength(1);
    expect(new Set(requestIds(byPeriod.data))).toEqual(new Set(aliceRows.slice(30, 60).map((row) => row.request_id)));

    const otherAccountsKey = await accountCall(ledger, alice.api_key, `/usage?key_id=${bob.key_id}`);
    expect(otherAccountsKey.body).toEqual({ object: "list", data: [], has_more: false, next_cursor: null });
  });

  it("answers bad query parameters with a 400 naming the parameter", async () => {
    const bad: Array<[string, string]> = [
      ["/usage?limit=0", "limit"],
      ["/usage?limit=501", "limit"],
      ["/usage?limit=ten", "limit"],
      ["/usage?from=yesterday", "from"],
      ["/usage?from=2030-03-02T00:00:00Z&to=2030-03-01T00:00:00Z", "to"],
      ["/usage?key_id=not-a-key", "key_id"],
      ["/usage?model=a&model=b", "model"],
      ["/usage?cursor=garbage", "cursor"],
      [`/usage?cursor=${Buffer.from(JSON.stringify([new Date().toISOString(), "x"])).toString("base64url")}`, "cursor"],
      ["/logs?status=sideways", "status"],
      ["/logs?limit=-1", "limit"],
      ["/statistics?from=2030-13-01", "from"],
      ["/statistics?from=2030-03-02&to=2030-03-01", "to"],
    ];
    for (const [path, param] of bad) {
      const answer = await accountCall(ledger, alice.api_key, path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error, path).toMatchObject({ type: "invalid_request_error", param });
    }
  });

  it("lists logged requests with their usage, parsed bodies, metadata-only entries and filters", async () => {
    const logged = [aliceRows[0]!, aliceRows[1]!, aliceRows[2]!, aliceRows[10]!, aliceRows[99]!];
    const request = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };
    await insertLog(logged[0]!, { capture: "metadata", error: "The vendor failed." });
    await insertLog(logged[1]!, { capture: "full", request: JSON.stringify(request), response: "not json {" });
    await insertLog(logged[2]!, { capture: "full", request: '{"cut":', response: '{"text":"ok"}', truncated: true });
    await insertLog(logged[3]!, { capture: "metadata" });
    await insertLog(logged[4]!, { capture: "full", request: "[]", response: "{}" });

    const { data } = await allPages(alice.api_key, "/logs?limit=2");
    expect(requestIds(data)).toEqual(newestFirst(logged));
    const byId = Object.fromEntries(data.map((entry) => [entry.request_id, entry]));
    expect(byId[logged[0]!.request_id]).toMatchObject({
      capture: "metadata",
      request_body: null,
      response_body: null,
      outcome: "vendor_error",
      error_code: "upstream_error",
      error_message: "The vendor failed.",
      model: logged[0]!.model,
      channel: "sim-main",
      prompt_tokens: logged[0]!.prompt_tokens,
      cost_micros: logged[0]!.cost_micros,
      latency_ms: 250,
    });
    expect(byId[logged[1]!.request_id]).toMatchObject({
      capture: "full",
      request_body: request,
      response_body: "not json {",
      truncated: false,
      outcome: "ok",
    });
    expect(byId[logged[2]!.request_id]).toMatchObject({
      request_body: '{"cut":',
      response_body: { text: "ok" },
      truncated: true,
    });

    const failed = await allPages(alice.api_key, "/logs?status=error");
    expect(requestIds(failed.data)).toEqual(newestFirst(logged.filter((row) => row.outcome !== "ok")));
    const ok = await allPages(alice.api_key, `/logs?status=ok&model=${logged[1]!.model}`);
    expect(requestIds(ok.data)).toEqual(
      newestFirst(logged.filter((row) => row.outcome === "ok" && row.model === logged[1]!.model)),
    );
    const byKey = await allPages(alice.api_key, `/logs?key_id=${aliceSecondKey.key_id}`);
    expect(requestIds(byKey.data)).toEqual(newestFirst(logged.filter((row) => row.key_id === aliceSecondKey.key_id)));
    const byPeriod = await allPages(
      alice.api_key,
      `/logs?from=${aliceRows[3]!.created_at}&to=${aliceRows[99]!.created_at}`,
    );
    expect(requestIds(byPeriod.data)).toEqual([logged[3]!.request_id]);

    const one = await accountCall(ledger, alice.api_key, `/logs/${logged[1]!.request_id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(byId[logged[1]!.request_id]);
  });

  it("shows request logs only to keys made to read them, and everything else to every key", async () => {
    const logged = aliceRows[7]!;
    await insertLog(logged, { capture: "full", request: '{"prompt":"private"}', response: "{}" });
    const reader = await adminCall(ledger, "POST", `/accounts/${alice.account_id}/keys`, {
      group: "default",
      read_logs: true,
    });
    expect(reader.body.read_logs).toBe(true);
    expect(aliceSecondKey).toMatchObject({ read_logs: false });

    for (const path of ["/logs", `/logs/${logged.request_id}`, "/logs?status=sideways"]) {
      const refused = await accountCall(ledger, aliceSecondKey.api_key, path);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        error: { message: expect.any(String), type: "invalid_request_error", param: null, code: "permission_denied" },
      });
      expect(JSON.stringify(refused.body)).not.toContain("private");
    }
    const allowed = await accountCall(ledger, reader.body.api_key, `/logs/${logged.request_id}`);
    expect(allowed.status).toBe(200);
    expect(allowed.body.request_id).toBe(logged.request_id);
    for (const path of ["/balance", "/usage", "/statistics"]) {
      expect((await accountCall(ledger, aliceSecondKey.api_key, path)).status).toBe(200);
    }
    const keys = await adminCall(ledger, "GET", `/accounts/${alice.account_id}/keys`);
    const readLogsOf = Object.fromEntries(
      keys.body.data.map((key: { key_id: string; read_logs: boolean }) => [key.key_id, key.read_logs]),
    );
    expect(readLogsOf).toEqual({
      [alice.key_id]: true,
      [aliceSecondKey.key_id]: false,
      [reader.body.key_id]: true,
    });
  });

  it("never shows another account's usage, logs or statistics", async () => {
    const bobsLogged = bobRows[1]!;
    await insertLog(bobsLogged, { capture: "full", request: '{"secret":"bob"}', response: "{}" });

    const bobsUsage = await allPages(bob.api_key, "/usage");
    expect(new Set(requestIds(bobsUsage.data))).toEqual(new Set(bobRows.map((row) => row.request_id)));
    const bobsLogs = await allPages(bob.api_key, "/logs");
    expect(requestIds(bobsLogs.data)).toEqual([bobsLogged.request_id]);

    // Alice asking for Bob's request is told exactly what she is told for an id nobody has.
    const bobsRequest = await accountCall(ledger, alice.api_key, `/logs/${bobsLogged.request_id}`);
    const nobodys = await accountCall(ledger, alice.api_key, "/logs/req-nobody");
    expect(bobsRequest.status).toBe(404);
    expect(nobodys.status).toBe(404);
    expect(JSON.stringify(bobsRequest.body).replaceAll(bobsLogged.request_id, "ID")).toBe(
      JSON.stringify(nobodys.body).replaceAll("req-nobody", "ID"),
    );
    // Alice has a usage record without a log row: not a log either.
    expect((await accountCall(ledger, alice.api_key, `/logs/${aliceRows[5]!.request_id}`)).status).toBe(404);

    const { body: fresh } = await adminCall(ledger, "POST", "/accounts", { name: "newcomer", read_logs: true });
    for (const path of ["/usage", "/logs"]) {
      expect((await accountCall(ledger, fresh.api_key, path)).body).toEqual({
        object: "list",
        data: [],
        has_more: false,
        next_cursor: null,
      });
    }
    expect((await accountCall(ledger, fresh.api_key, "/statistics")).body.data).toEqual([]);
  });

  it("sums statistics per day and model from the stored daily totals", async () => {
    const days = [
      {
        account_id: alice.account_id,
        day: "2030-03-01",
        model: "gpt-4o-mini",
        requests: 3,
        prompt: 30,
        completion: 9,
        cost: 1_000,
      },
      {
        account_id: alice.account_id,
        day: "2030-03-01",
        model: "qwen-max",
        requests: 1,
        prompt: 7,
        completion: 2,
        cost: 250,
      },
      {
        account_id: alice.account_id,
        day: "2030-03-02",
        model: "gpt-4o-mini",
        requests: 5,
        prompt: 50,
        completion: 11,
        cost: 9_000_000_000_000,
      },
      {
        account_id: alice.account_id,
        day: "2030-03-04",
        model: "qwen-max",
        requests: 2,
        prompt: 4,
        completion: 4,
        cost: 3,
      },
      {
        account_id: bob.account_id,
        day: "2030-03-02",
        model: "gpt-4o-mini",
        requests: 100,
        prompt: 1,
        completion: 1,
        cost: 1,
      },
    ];
    await sql(
      `INSERT INTO ledger.daily_usage (account_id, day, model, requests, prompt_tokens, completion_tokens, cost_micros)
       SELECT d.account_id::uuid, d.day::date, d.model, d.requests, d.prompt, d.completion, d.cost
       FROM jsonb_to_recordset($1::jsonb) AS d(account_id text, day text, model text, requests bigint, prompt bigint,
         completion bigint, cost bigint)`,
      [JSON.stringify(days)],
    );

    const all = await accountCall(ledger, alice.api_key, "/statistics");
    expect(all.status).toBe(200);
    expect(all.body.object).toBe("statistics");
    expect(all.body.data).toEqual(
      days
        .filter((day) => day.account_id === alice.account_id)
        .map((day) => ({
          day: day.day,
          model: day.model,
          requests: day.requests,
          prompt_tokens: day.prompt,
          completion_tokens: day.completion,
          total_tokens: day.prompt + day.completion,
          cached_tokens: 0,
          cache_creation_tokens: 0,
          reasoning_tokens: 0,
          cost_micros: String(day.cost),
        })),
    );
    const [stored] = await sql(
      `SELECT sum(requests)::int AS requests, sum(prompt_tokens)::int AS prompt, sum(completion_tokens)::int AS completion,
         sum(cost_micros)::text AS cost FROM ledger.daily_usage WHERE account_id = $1`,
      [alice.account_id],
    );
    expect(all.body.totals).toEqual({
      requests: (stored as { requests: number }).requests,
      prompt_tokens: (stored as { prompt: number }).prompt,
      completion_tokens: (stored as { completion: number }).completion,
      total_tokens: (stored as { prompt: number }).prompt + (stored as { completion: number }).completion,
      cached_tokens: 0,
      cache_creation_tokens: 0,
      reasoning_tokens: 0,
      cost_micros: (stored as { cost: string }).cost,
    });

    // Both ends of the period are whole UTC days and included.
    const period = await accountCall(ledger, alice.api_key, "/statistics?from=2030-03-02&to=2030-03-04&model=qwen-max");
    expect(period.body.data).toEqual([expect.objectContaining({ day: "2030-03-04", model: "qwen-max", requests: 2 })]);
    expect(period.body.totals).toMatchObject({ requests: 2, cost_micros: "3" });

    const bobs = await accountCall(ledger, bob.api_key, "/statistics");
    expect(bobs.body.totals).toMatchObject({ requests: 100, cost_micros: "1" });
  });

  it("shows requests billed from real usage events in usage, logs and statistics", async () => {
    const { body: account } = await adminCall(ledger, "POST", "/accounts", {
      name: "carol",
      credit_yuan: "1",
      read_logs: true,
    });
    const request = { messages: [{ role: "user", content: "hello" }] };
    const event = (index: number, overrides: Partial<UsageEvent>) =>
      UsageEvent.fromPartial({
        requestId: `req-${index}-${randomUUID()}`,
        accountId: account.account_id,
        keyId: account.key_id,
        model: "gpt-4o-mini",
        vendor: "sim",
        channel: "sim-main",
        promptTokens: 3 + index,
        completionTokens: 2,
        totalTokens: 5 + index,
        outcome: UsageOutcome.USAGE_OUTCOME_OK,
        inputPriceMicros: 1_000_000,
        outputPriceMicros: 1_000_000,
        startedAtMs: Date.now() - 1_000 + index,
        ...overrides,
      });
    const events = [
      // Cache reads, a cache write and reasoning: kept in the record and summed in the statistics.
      event(0, {
        promptTokens: 40,
        cachedTokens: 20,
        cacheCreationTokens: 10,
        completionTokens: 9,
        reasoningTokens: 4,
      }),
      event(1, {
        log: RequestLog.fromPartial({
          capture: LogCapture.LOG_CAPTURE_FULL,
          requestBody: JSON.stringify(request),
          responseBody: '{"text":"hi"}',
        }),
      }),
      event(2, {
        outcome: UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR,
        errorCode: "upstream_error",
        completionTokens: 0,
        log: RequestLog.fromPartial({ capture: LogCapture.LOG_CAPTURE_METADATA, errorMessage: "The vendor failed." }),
      }),
    ];
    const nats = await connect({ servers: testServers.natsUrl });
    try {
      const jetstream = nats.jetstream();
      for (const usage of events) {
        await jetstream.publish(natsNames(ledger.namespace).usageSubject("sim"), UsageEvent.encode(usage).finish(), {
          msgID: usage.requestId,
        });
      }
    } finally {
      await nats.close();
    }
    const usage = await eventually(async () => {
      const answer = await accountCall(ledger, account.api_key, "/usage");
      return answer.body.data.length === events.length ? answer.body : undefined;
    });
    expect(new Set(requestIds(usage.data))).toEqual(new Set(events.map((sent) => sent.requestId)));
    expect(
      usage.data.find((record: { request_id: string }) => record.request_id === events[0]!.requestId),
    ).toMatchObject({
      prompt_tokens: 40,
      cached_tokens: 20,
      cache_creation_tokens: 10,
      reasoning_tokens: 4,
    });

    const { body: logs } = await accountCall(ledger, account.api_key, "/logs");
    expect(logs.data).toEqual([
      expect.objectContaining({
        request_id: events[2]!.requestId,
        capture: "metadata",
        outcome: "vendor_error",
        error_message: "The vendor failed.",
        request_body: null,
      }),
      expect.objectContaining({
        request_id: events[1]!.requestId,
        capture: "full",
        request_body: request,
        response_body: { text: "hi" },
      }),
    ]);

    const { body: statistics } = await accountCall(ledger, account.api_key, "/statistics");
    const sum = (field: string) =>
      usage.data.reduce((total: bigint, record: Record<string, number | string>) => total + BigInt(record[field]!), 0n);
    expect(statistics.totals).toEqual({
      requests: events.length,
      prompt_tokens: Number(sum("prompt_tokens")),
      completion_tokens: Number(sum("completion_tokens")),
      total_tokens: Number(sum("prompt_tokens") + sum("completion_tokens")),
      cached_tokens: Number(sum("cached_tokens")),
      cache_creation_tokens: Number(sum("cache_creation_tokens")),
      reasoning_tokens: Number(sum("reasoning_tokens")),
      cost_micros: sum("cost_micros").toString(),
    });
    const balance = await accountCall(ledger, account.api_key, "/balance");
    expect(BigInt(balance.body.balance_micros)).toBe(1_000_000n - sum("cost_micros"));
  });
});
