import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { loadUsageDefinition } from "@gateway/platform";
import {
  createTemporaryDatabase,
  type ServiceProcess,
  startService,
  type TemporaryDatabase,
  testServers,
  testServiceTokenSecret,
  uniqueNamespace,
} from "@gateway/stack";
import { connect } from "nats";
import { createClient } from "redis";
import { migrate } from "../src/migrate.js";

/** The built service, as `pnpm start` and the Kubernetes Deployment run it. */
export const ledgerEntry = fileURLToPath(new URL("../dist/main.js", import.meta.url));
export const cliEntry = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

export interface LedgerUnderTest {
  database: TemporaryDatabase;
  namespace: string;
  adminToken: string;
  adminUrl: string;
  grpcAddress: string;
  service: ServiceProcess;
  /** Starts one more ledger process on the same database and namespace. */
  startAnother(env?: NodeJS.ProcessEnv): Promise<ServiceProcess>;
  /** Stops every process (asserting a clean exit is the caller's business) and removes what the run created. */
  cleanUp(): Promise<Array<number | null>>;
}

/**
 * A ledger of its own for one test file: a fresh migrated database, a unique namespace
 * (NATS stream, subjects and Redis keys), and the built service on ports chosen by the system.
 */
export async function startLedger(): Promise<LedgerUnderTest> {
  const database = await createTemporaryDatabase();
  const namespace = uniqueNamespace("ledger");
  const adminToken = `test-admin-${randomBytes(12).toString("hex")}`;
  const processes: ServiceProcess[] = [];
  const startAnother = async (env: NodeJS.ProcessEnv = {}) => {
    const service = await startService("ledger", ledgerEntry, {
      DATABASE_URL: database.url,
      REDIS_URL: testServers.redisUrl,
      NATS_URL: testServers.natsUrl,
      GATEWAY_NAMESPACE: namespace,
      GATEWAY_ADMIN_TOKEN: adminToken,
      GATEWAY_ENV: "development",
      GATEWAY_SERVICE_TOKEN_SECRET: testServiceTokenSecret,
      LEDGER_GRPC_PORT: "0",
      LEDGER_ADMIN_PORT: "0",
      LOG_LEVEL: "info",
      ...env,
    });
    processes.push(service);
    return service;
  };
  const cleanUp = async () => {
    const exitCodes = await Promise.all(processes.map((process) => process.stop()));
    await Promise.allSettled([database.drop(), deleteStream(namespace), deleteRedisKeys(namespace)]);
    return exitCodes;
  };
  try {
    await migrate(database.url);
    const service = await startAnother();
    return {
      database,
      namespace,
      adminToken,
      adminUrl: `http://127.0.0.1:${service.ports.admin}`,
      grpcAddress: `127.0.0.1:${service.ports.grpc}`,
      service,
      startAnother,
      cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

async function deleteStream(namespace: string): Promise<void> {
  const nats = await connect({ servers: testServers.natsUrl });
  try {
    const manager = await nats.jetstreamManager();
    const usage = loadUsageDefinition(namespace);
    await Promise.allSettled([usage, usage.request_logs].map(({ stream }) => manager.streams.delete(stream.name)));
  } finally {
    await nats.close();
  }
}

async function deleteRedisKeys(namespace: string): Promise<void> {
  const redis = createClient({ url: testServers.redisUrl });
  await redis.connect();
  try {
    for await (const keys of redis.scanIterator({ MATCH: `${namespace}:*`, COUNT: 100 })) {
      if (keys.length > 0) await redis.del(keys);
    }
  } finally {
    redis.destroy();
  }
}

// Answers are read loosely in tests; the assertions themselves check their shape.
// biome-ignore lint/suspicious/noExplicitAny: see above
type AnswerBody = any;

/** Calls the admin API as an operator would. */
export async function adminCall(
  ledger: Pick<LedgerUnderTest, "adminUrl" | "adminToken">,
  method: "GET" | "POST" | "PUT",
  path: string,
  body?: unknown,
  /** null sends no Authorization header at all. */
  token: string | null = ledger.adminToken,
): Promise<{ status: number; body: AnswerBody }> {
  const response = await fetch(`${ledger.adminUrl}/admin${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Calls the account API as the console would, signed in with one of the account's API keys (null: no header). */
export async function accountCall(
  ledger: Pick<LedgerUnderTest, "adminUrl">,
  apiKey: string | null,
  path: string,
): Promise<{ status: number; body: AnswerBody }> {
  const response = await fetch(`${ledger.adminUrl}/v1/account${path}`, {
    headers: apiKey === null ? {} : { authorization: `Bearer ${apiKey}` },
  });
  return { status: response.status, body: await response.json() };
}
