import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTemporaryDatabase, queryRows, type TemporaryDatabase } from "@gateway/stack";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "../src/generated/prisma/client.js";
import { migrate, migrationsDirectory, pendingMigrations } from "../src/migrate.js";
import { FilesystemStorage } from "../src/storage/filesystem-storage.js";
import { findTask } from "../src/tasks/task-sql.js";
import { claimTasks } from "../src/worker/claim-tasks.js";
import { purgeExpired } from "../src/worker/purge-expired.js";
import { timeOutTasks } from "../src/worker/time-out-tasks.js";
import { updateHeldTask } from "../src/worker/update-held-task.js";

let database: TemporaryDatabase;
// The generated client checks that schema.prisma (hence the VideoTask type) matches the migrations.
let client: PrismaClient;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTemporaryDatabase();
  const [first, second] = await Promise.all([migrate(database.url), migrate(database.url)]);
  const migrations = readdirSync(migrationsDirectory, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  expect([first.applied.length, second.applied.length].sort()).toEqual([0, migrations.length]);
  client = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url }) });
  pool = new pg.Pool({ connectionString: database.url });
});
afterAll(async () => {
  await Promise.all([client?.$disconnect(), pool?.end()]);
  await database?.drop();
});

const now = new Date("2030-01-01T00:00:00Z");

async function newTask(fields: { createdAt?: Date } = {}) {
  const createdAt = fields.createdAt ?? now;
  return client.videoTask.create({
    data: {
      id: `task_${randomUUID().replaceAll("-", "")}`,
      requestId: randomUUID(),
      accountId: randomUUID(),
      keyId: randomUUID(),
      modelGroup: "premium",
      model: "sora-2",
      vendor: "openai",
      channel: "openai-main",
      prompt: "a test",
      durationSeconds: 5,
      size: "720x1280",
      publicBaseUrl: "http://127.0.0.1",
      createdAt,
      expiresAt: new Date(createdAt.getTime() + 86_400_000),
    },
  });
}

const setStatus = (id: string, status: string, extra = "") =>
  queryRows(database.url, `UPDATE video.tasks SET status = $2 ${extra} WHERE id = $1`, [id, status]);

describe("the video schema", () => {
  it("is fully migrated and matches the generated client", async () => {
    expect(await pendingMigrations(database.url)).toEqual([]);
    const task = await newTask();
    const read = await client.videoTask.findUniqueOrThrow({ where: { id: task.id } });
    expect(read).toMatchObject({ status: "pending", attempts: 0, progress: null, callbackState: null });
    // The service's own SQL reads the row exactly as the generated client does.
    expect(await findTask(pool, task.id)).toEqual(read);
  });

  it("allows only pending -> processing -> completed | failed", async () => {
    const finished = "finished_at = now()";
    const skipped = await newTask();
    await expect(setStatus(skipped.id, "completed", `, storage_key = 'x.mp4', ${finished}`)).rejects.toThrow(
      /pending -> completed is not an allowed transition/,
    );

    const normal = await newTask();
    await setStatus(normal.id, "processing");
    await expect(setStatus(normal.id, "pending")).rejects.toThrow(/processing -> pending/);
    await setStatus(normal.id, "completed", `, storage_key = 'x.mp4', ${finished}`);
    await expect(setStatus(normal.id, "failed", `, error = 'late', ${finished}`)).rejects.toThrow(
      /completed -> failed/,
    );
    await expect(setStatus(normal.id, "processing")).rejects.toThrow(/completed -> processing/);

    const early = await newTask();
    await setStatus(early.id, "failed", `, error = 'timed out', ${finished}`);
    await expect(setStatus(early.id, "processing")).rejects.toThrow(/failed -> processing/);
  });

  it("requires a file for completed tasks and a reason for failed ones, and pending at birth", async () => {
    const task = await newTask();
    await setStatus(task.id, "processing");
    await expect(setStatus(task.id, "completed", ", finished_at = now()")).rejects.toThrow(/tasks_completed_has_video/);
    await expect(setStatus(task.id, "failed", ", finished_at = now()")).rejects.toThrow(/tasks_failed_has_error/);
    await expect(
      queryRows(
        database.url,
        `INSERT INTO video.tasks (id, request_id, account_id, key_id, model_group, model, vendor, channel, prompt,
           duration_seconds, size, status, public_base_url, created_at, expires_at)
         VALUES ('task_born_done', 'r', gen_random_uuid(), gen_random_uuid(), 'g', 'm', 'v', 'c', 'p', 5, 's',
           'processing', 'u', now(), now())`,
      ),
    ).rejects.toThrow(/must start pending/);
  });

  it("lets concurrent claimers take disjoint tasks and retakes only expired leases", async () => {
    const claimAt = new Date(now.getTime() + 1_000);
    await queryRows(database.url, "DELETE FROM video.tasks");
    await Promise.all(Array.from({ length: 30 }, () => newTask()));
    const claims = await Promise.all(
      ["a", "b", "c"].map((workerId) => claimTasks(pool, { workerId, now: claimAt, leaseMs: 10_000, limit: 15 })),
    );
    const all = claims.flat().map((task) => task.id);
    expect(all).toHaveLength(30);
    expect(new Set(all).size).toBe(30);
    // Nothing is free while the leases run; everything is once they lapse.
    expect(await claimTasks(pool, { workerId: "d", now: claimAt, leaseMs: 10_000, limit: 50 })).toEqual([]);
    const later = new Date(claimAt.getTime() + 10_001);
    expect(await claimTasks(pool, { workerId: "d", now: later, leaseMs: 10_000, limit: 50 })).toHaveLength(30);
  });

  it("writes a held task only for its worker, whatever columns the write names", async () => {
    await queryRows(database.url, "DELETE FROM video.tasks");
    const task = await newTask();
    await claimTasks(pool, { workerId: "a", now, leaseMs: 10_000, limit: 1 });
    // One connection holding statements whose column lists start alike, as a completion with and
    // without a callback do: their names must stay apart however long the lists grow.
    const single = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const progress = { vendorJobId: "job", progress: 50, startedAt: now, leaseUntil: now, billedSeconds: 5 };
      expect(await updateHeldTask(single, task.id, "b", progress)).toBe(0);
      expect(await updateHeldTask(single, task.id, "a", progress)).toBe(1);
      expect(await updateHeldTask(single, task.id, "a", { ...progress, callbackAttempts: 1, error: undefined })).toBe(
        1,
      );
      expect(await updateHeldTask(single, task.id, "a", { status: "failed", error: "no", finishedAt: now })).toBe(1);
      expect(await updateHeldTask(single, task.id, "a", { progress: 60 })).toBe(0);
    } finally {
      await single.end();
    }
    expect(await findTask(pool, task.id)).toMatchObject({
      status: "failed",
      error: "no",
      progress: 50,
      vendorJobId: "job",
      callbackAttempts: 1,
      workerId: "a",
    });
  });

  it("purges expired tasks, except a completed one whose usage is not yet published", async () => {
    await queryRows(database.url, "DELETE FROM video.tasks");
    const completed = "storage_key = 'x.mp4', finished_at = now()";
    const [failed, published, unpublished] = await Promise.all([newTask(), newTask(), newTask()]);
    await setStatus(failed.id, "failed", ", error = 'no', finished_at = now()");
    for (const task of [published, unpublished]) await setStatus(task.id, "processing");
    await setStatus(published.id, "completed", `, ${completed}, usage_published_at = now()`);
    await setStatus(unpublished.id, "completed", `, ${completed}`);
    const directory = mkdtempSync(join(tmpdir(), "video-purge-"));
    const dayLater = new Date(now.getTime() + 86_400_000);
    const purge = purgeExpired(pool, new FilesystemStorage(directory), { now: dayLater, limit: 10 });
    expect(await purge.finally(() => rmSync(directory, { recursive: true }))).toMatchObject({ purged: 2 });
    const left = await queryRows<{ id: string }>(database.url, "SELECT id FROM video.tasks");
    expect(left.map((row) => row.id)).toEqual([unpublished.id]);
  });

  it("times out unfinished tasks only", async () => {
    await queryRows(database.url, "DELETE FROM video.tasks");
    const old = await newTask({ createdAt: new Date(now.getTime() - 60_000) });
    const fresh = await newTask();
    const timedOut = await timeOutTasks(pool, { now, timeoutMs: 30_000, limit: 10 });
    expect(timedOut.map((task) => task.id)).toEqual([old.id]);
    const [row] = await queryRows<{ status: string; error: string }>(
      database.url,
      "SELECT status, error FROM video.tasks WHERE id = $1",
      [old.id],
    );
    expect(row).toMatchObject({ status: "failed", error: expect.stringMatching(/timed out/) });
    expect((await client.videoTask.findUniqueOrThrow({ where: { id: fresh.id } })).status).toBe("pending");
  });
});
