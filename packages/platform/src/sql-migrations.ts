import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import pg from "pg";

// Imported as "@gateway/platform/sql-migrations" (not from the package index) so the migration
// commands (migrate-main.ts) load the migrator alone, not the whole platform (a second or so).

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

export interface SqlMigrator {
  migrate(databaseUrl: string, directory?: URL): Promise<MigrationResult>;
  pendingMigrations(databaseUrl: string, directory?: URL): Promise<string[]>;
}

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

async function readMigrations(directory: URL): Promise<Migration[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(new URL(`${name}/migration.sql`, directory), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

/**
 * The migration step of a service that owns one Postgres schema. Migrations are Prisma's
 * folder layout (one sub-folder per migration, each holding migration.sql) applied as plain
 * SQL, because `prisma migrate` needs a schema engine that cannot be downloaded offline.
 *
 * `migrate` applies every migration not yet recorded in `<schema>._migrations`, in folder-name
 * order, each in its own transaction. A session advisory lock (any constant, the same for every
 * instance of the service) serialises concurrent callers (two replicas starting at once, or a
 * migration Job racing a service): the second waits, then finds the work done.
 */
export function sqlMigrator(options: { schema: string; lockId: number; directory: URL }): SqlMigrator {
  const { schema, lockId } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`not a plain schema name: ${schema}`);
  const table = `${schema}._migrations`;

  async function migrate(databaseUrl: string, directory = options.directory): Promise<MigrationResult> {
    const migrations = await readMigrations(directory);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query("SELECT pg_advisory_lock($1)", [lockId]);
      await client.query(`
        CREATE SCHEMA IF NOT EXISTS ${schema};
        CREATE TABLE IF NOT EXISTS ${table} (
          name text PRIMARY KEY,
          checksum text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
      const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM ${table}`);
      const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
      const result: MigrationResult = { applied: [], alreadyApplied: [] };
      for (const migration of migrations) {
        const checksum = recorded.get(migration.name);
        if (checksum !== undefined) {
          // An applied migration that changed afterwards means the database and the code disagree.
          if (checksum !== migration.checksum) {
            throw new Error(
              `migration ${migration.name} was changed after it was applied; add a new migration instead`,
            );
          }
          result.alreadyApplied.push(migration.name);
          continue;
        }
        await applyOne(client, table, migration);
        result.applied.push(migration.name);
      }
      return result;
    } finally {
      // Ending the session releases the advisory lock too, even if the unlock is never reached.
      await client.end();
    }
  }

  /**
   * Names of migrations the database has not applied yet (all of them if it was never
   * migrated), so a service can refuse to start against an old schema with a clear message.
   */
  async function pendingMigrations(databaseUrl: string, directory = options.directory): Promise<string[]> {
    const migrations = await readMigrations(directory);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ migrated: boolean }>(
        `SELECT to_regclass('${table}') IS NOT NULL AS migrated`,
      );
      const applied = rows[0]?.migrated
        ? new Set((await client.query<{ name: string }>(`SELECT name FROM ${table}`)).rows.map((row) => row.name))
        : new Set<string>();
      return migrations.map((migration) => migration.name).filter((name) => !applied.has(name));
    } finally {
      await client.end();
    }
  }

  return { migrate, pendingMigrations };
}

async function applyOne(client: pg.Client, table: string, migration: Migration): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query(migration.sql);
    await client.query(`INSERT INTO ${table} (name, checksum) VALUES ($1, $2)`, [migration.name, migration.checksum]);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw new Error(`migration ${migration.name} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * The body of a service's migrate-main.ts (the Kubernetes migration Job and `pnpm --filter
 * <service> migrate`): applies the migrations to DATABASE_URL, prints the result as one JSON
 * line and exits, with a one-line reason and a non-zero code when it cannot.
 */
export async function runMigrationCommand(migrator: SqlMigrator): Promise<never> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error("DATABASE_URL is not set: point it at the Postgres database to migrate");
    process.exit(2);
  }
  try {
    const result = await migrator.migrate(databaseUrl);
    console.log(JSON.stringify({ msg: "migrated", ...result }));
    process.exit(0);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: string }).code;
    const unreachable = code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT";
    const host = URL.canParse(databaseUrl) ? new URL(databaseUrl).host : "the database";
    console.error(
      unreachable ? `cannot reach Postgres at ${host} (${code}): is it running?` : `migration failed: ${message}`,
    );
    process.exit(1);
  }
}
