import { randomUUID } from "node:crypto";
import { eventually, queryRows } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteLogsBefore } from "../src/retention/request-log-retention.js";
import { type LedgerUnderTest, startLedger } from "./ledger-under-test.js";
import { type MigratedDatabase, openMigratedDatabase } from "./migrated-database.js";

const DAY_MS = 86_400_000;

/** Inserts one metadata log per age (in days) and returns their request ids in the same order. */
async function insertLogs(databaseUrl: string, ageDays: number[]): Promise<string[]> {
  const requestIds = ageDays.map(() => `log-${randomUUID()}`);
  const createdAt = ageDays.map((days) => new Date(Date.now() - days * DAY_MS).toISOString());
  await queryRows(
    databaseUrl,
    `INSERT INTO ledger.request_logs (request_id, account_id, capture, created_at)
     SELECT id, $3::uuid, 'metadata', at FROM unnest($1::text[], $2::timestamptz[]) AS log(id, at)`,
    [requestIds, createdAt, randomUUID()],
  );
  return requestIds;
}

const remainingLogs = async (databaseUrl: string) =>
  (await queryRows<{ request_id: string }>(databaseUrl, "SELECT request_id FROM ledger.request_logs")).map(
    (row) => row.request_id,
  );

describe("request log retention", () => {
  let migrated: MigratedDatabase;

  beforeAll(async () => {
    migrated = await openMigratedDatabase();
  });
  afterAll(() => migrated?.close());

  it("deletes the logs older than the cutoff in batches and keeps the newer ones", async () => {
    const old = await insertLogs(migrated.database.url, [31, 40, 45, 90, 365, 30.01, 400]);
    const recent = await insertLogs(migrated.database.url, [0, 1, 29.99]);
    const deleted = await deleteLogsBefore(migrated.prisma, new Date(Date.now() - 30 * DAY_MS), { batchRows: 2 });
    expect(deleted).toBe(old.length);
    expect((await remainingLogs(migrated.database.url)).sort()).toEqual([...recent].sort());
  });

  it("stops between batches when asked", async () => {
    // Oldest first, the order they are deleted in.
    const old = await insertLogs(migrated.database.url, [54, 53, 52, 51, 50]);
    const deleted = await deleteLogsBefore(migrated.prisma, new Date(Date.now() - 30 * DAY_MS), {
      batchRows: 2,
      stopping: () => true,
    });
    expect(deleted).toBe(2);
    const remaining = await remainingLogs(migrated.database.url);
    expect(remaining).toEqual(expect.arrayContaining(old.slice(2)));
    expect(remaining).not.toContain(old[0]);
  });
});

describe("ledger with LEDGER_LOG_RETENTION_DAYS", () => {
  let ledger: LedgerUnderTest;

  beforeAll(async () => {
    ledger = await startLedger();
  });
  afterAll(async () => {
    // Every process, the one running retention included, stops cleanly.
    expect(await ledger?.cleanUp()).toEqual([0, 0]);
  });

  it("deletes request logs past the configured days when it starts", async () => {
    const old = await insertLogs(ledger.database.url, [11, 20]);
    const recent = await insertLogs(ledger.database.url, [0, 9]);
    await ledger.startAnother({ LEDGER_LOG_RETENTION_DAYS: "10" });
    const remaining = await eventually(async () => {
      const ids = await remainingLogs(ledger.database.url);
      return ids.length === recent.length ? ids : undefined;
    });
    expect(remaining.sort()).toEqual([...recent].sort());
    expect(old.some((requestId) => remaining.includes(requestId))).toBe(false);
  });
});
