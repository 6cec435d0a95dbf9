import { readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createTemporaryDatabase, type TemporaryDatabase } from "@gateway/stack";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { migrate, pendingMigrations } from "../src/migrate.js";

describe("migrate", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
  });
  const temporaryDatabase = async (): Promise<TemporaryDatabase> => {
    const database = await createTemporaryDatabase();
    cleanups.push(() => database.drop());
    return database;
  };
  const query = async (url: string, sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  };

  const migrationsFolder = fileURLToPath(new URL("../prisma/migrations", import.meta.url));

  it("applies each migration once even when run twice concurrently", async () => {
    const database = await temporaryDatabase();
    const shipped = readdirSync(migrationsFolder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(shipped.length).toBeGreaterThan(0);
    expect(await pendingMigrations(database.url)).toEqual(shipped);
    const results = await Promise.all([migrate(database.url), migrate(database.url)]);
    expect(results.map((result) => result.applied.length).sort()).toEqual([0, shipped.length]);
    expect(results.flatMap((result) => [...result.applied, ...result.alreadyApplied]).sort()).toEqual(
      [...shipped, ...shipped].sort(),
    );
    expect(await query(database.url, "SELECT name FROM ledger._migrations ORDER BY name")).toEqual(
      shipped.map((name) => ({ name })),
    );
    expect(await query(database.url, "SELECT count(*)::int AS groups FROM ledger.model_groups")).toEqual([
      { groups: 2 },
    ]);
    expect(await migrate(database.url)).toEqual({ applied: [], alreadyApplied: shipped });
    expect(await pendingMigrations(database.url)).toEqual([]);
  });

  it("rolls a failed migration back and refuses a migration edited after it was applied", async () => {
    const database = await temporaryDatabase();
    const folder = await mkdtemp(join(tmpdir(), "ledger-migrations-"));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const directory = pathToFileURL(`${folder}/`);
    const write = async (name: string, sql: string) => {
      await mkdir(join(folder, name), { recursive: true });
      await writeFile(join(folder, name, "migration.sql"), sql);
    };

    await write("0001_first", "CREATE TABLE ledger.first (id int);");
    await write("0002_broken", "CREATE TABLE ledger.second (id int); SELECT no_such_function();");
    await expect(migrate(database.url, directory)).rejects.toThrow(/0002_broken failed/);
    expect(await query(database.url, "SELECT to_regclass('ledger.second') AS second")).toEqual([{ second: null }]);

    await write("0002_broken", "CREATE TABLE ledger.second (id int);");
    expect(await migrate(database.url, directory)).toEqual({
      applied: ["0002_broken"],
      alreadyApplied: ["0001_first"],
    });

    await write("0001_first", "CREATE TABLE ledger.first (id bigint);");
    await expect(migrate(database.url, directory)).rejects.toThrow(/0001_first was changed/);
  });
});
