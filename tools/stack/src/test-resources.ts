import { randomBytes } from "node:crypto";
import { type ServiceClientOptions, type ServiceName, serviceClientOptions } from "@gateway/platform";
import pg from "pg";

/** Where the tests find the real servers; the development machines run them locally. */
export const testServers = {
  postgresUrl: process.env.TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
  redisUrl: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
  natsUrl: process.env.TEST_NATS_URL ?? "nats://127.0.0.1:4222",
};

/** Every test stack of this process signs internal gRPC calls with this secret. */
export const testServiceTokenSecret = randomBytes(32).toString("hex");

/** gRPC client options for a test calling a service directly, as `service` would. */
export const testClientOptions = (service: ServiceName = "tools"): ServiceClientOptions =>
  serviceClientOptions(service, testServiceTokenSecret);

/** A namespace unique to this run, so parallel runs never share streams or keys. */
export function uniqueNamespace(prefix = "t"): string {
  return `${prefix}${randomBytes(5).toString("hex")}`;
}

export interface TemporaryDatabase {
  url: string;
  drop(): Promise<void>;
}

// A pool's end() resolves once its clients are told to close, before their sessions are over: a
// forced drop in that instant kills a session mid-goodbye, which its client throws as uncaught.
const DROP_GRACE_MS = 1_000;

/** Waits until no session uses `database`, or `withinMs` passes (then the drop forces them out). */
async function connectionsGone(admin: pg.Client, database: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const { rows } = await admin.query<{ sessions: number }>(
      "SELECT count(*)::int AS sessions FROM pg_stat_activity WHERE datname = $1",
      [database],
    );
    if (rows[0]!.sessions === 0 || Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Creates an empty database for one test run and drops it afterwards. */
export async function createTemporaryDatabase(adminUrl = testServers.postgresUrl): Promise<TemporaryDatabase> {
  const name = `gw_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await connectionsGone(client, name, DROP_GRACE_MS);
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Polls until `probe` returns a value (not undefined), for effects that land asynchronously. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 10_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export async function queryRows<Row>(databaseUrl: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** A ledger usage record as tests read it (bigint columns arrive as strings). */
export interface UsageRecordRow {
  request_id: string;
  account_id: string;
  channel: string;
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  cache_creation_tokens: number;
  reasoning_tokens: number;
  billed_units: number;
  unit: string | null;
  estimated: boolean;
  outcome: string;
  cost_micros: string;
  stream: boolean;
}

export const usageRecordsOf = (databaseUrl: string, requestId: string) =>
  queryRows<UsageRecordRow>(databaseUrl, "SELECT * FROM ledger.usage_records WHERE request_id = $1", [requestId]);

/** An account's balance in micro-yuan, read from ledger's table. */
export const balanceMicrosOf = async (databaseUrl: string, accountId: string) =>
  BigInt(
    (
      await queryRows<{ balance_micros: string }>(
        databaseUrl,
        "SELECT balance_micros FROM ledger.accounts WHERE id = $1",
        [accountId],
      )
    )[0]!.balance_micros,
  );

/** The request's usage record, once ledger has stored it. */
export const usageRecordOf = (databaseUrl: string, requestId: string) =>
  eventually(async () => (await usageRecordsOf(databaseUrl, requestId))[0]);

/** What a command a test ran ended with: execFile rejects on a non-zero exit, with the output on the error. */
export async function commandOutcome(
  run: Promise<{ stdout: string; stderr: string }>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
