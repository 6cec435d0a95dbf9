// The ledger process: wires configuration, connections, the gRPC server, the admin HTTP
// API and the usage consumer together, and takes them down in order on SIGTERM/SIGINT.
import { createServer } from "node:http";
import {
  beginService,
  configuredUsageDefinition,
  connectNats,
  createRedis,
  createSqlPool,
  drainGrpcServer,
  listenHttp,
  requireMigrated,
  serviceTokenSecret,
  shutdownTimings,
} from "@gateway/platform";
import type { CommittedBalance } from "./accounts/committed-copies.js";
import { createBalanceLoader } from "./accounts/load-balance.js";
import { createAdminApp } from "./admin/app.js";
import { loadLedgerConfig } from "./config.js";
import { adminService } from "./console/admin-service.js";
import { consoleService } from "./console/console-service.js";
import { connectDatabase } from "./database.js";
import { copyCatalogueGroupsOnChange } from "./groups/copy-catalogue-groups.js";
import { startGrpcServer } from "./grpc-server.js";
import { createRevocationAnnouncer } from "./keys/announce-revocation.js";
import { KeyCache } from "./keys/key-cache.js";
import { createKeyResolver } from "./keys/resolve-key.js";
import { pendingMigrations } from "./migrate.js";
import { operationsService } from "./operations/operations-service.js";
import { startRequestLogConsumer } from "./request-logs/consume-request-logs.js";
import { expiredResponsesPurge, StoredResponses } from "./responses/stored-responses.js";
import { startPeriodicPurge } from "./retention/periodic-purge.js";
import { requestLogRetention } from "./retention/request-log-retention.js";
import { BATCHES_IN_FLIGHT, startUsageConsumer } from "./usage/consume-usage.js";
import { settleReservations } from "./usage/settle-reservations.js";
import { UsageMetrics } from "./usage/usage-metrics.js";

const start = beginService("ledger", loadLedgerConfig);
const { config, logger } = start;
// Annotated so the compiler knows a call ends the process.
const fail: (message: string, error?: unknown) => never = start.fail;
let tokenSecret: string | undefined;
try {
  tokenSecret = serviceTokenSecret(config, logger);
} catch (error) {
  fail("cannot check internal calls", error);
}
await requireMigrated(start, pendingMigrations, "pnpm --filter @gateway/ledger migrate");

const database = connectDatabase(config.DATABASE_URL);
const usagePool = createSqlPool(config.DATABASE_URL, BATCHES_IN_FLIGHT, logger);
// A connection of their own: a statement full of bodies never holds up a usage batch.
const requestLogPool = createSqlPool(config.DATABASE_URL, 1, logger);
const redis = createRedis(config.REDIS_URL, logger, "key lookups fall back to Postgres");
const nats = await connectNats(config, "ledger").catch((error: unknown) =>
  fail("cannot reach NATS at NATS_URL", error),
);
const cache = new KeyCache(redis, config.GATEWAY_NAMESPACE, logger);
const resolveKey = createKeyResolver(database, cache);

const announceRevocation = createRevocationAnnouncer(cache, nats, config.GATEWAY_NAMESPACE);
copyCatalogueGroupsOnChange(nats, config.GATEWAY_NAMESPACE, usagePool, cache, logger);
const forgetCachedKeys = (keyHashes: string[]) => cache.delete(...keyHashes);
const publishBalance = (accountId: string, balance: CommittedBalance) =>
  settleReservations(redis, config.GATEWAY_NAMESPACE, [], { balances: new Map([[accountId, balance]]) }, logger);
const grpc = await startGrpcServer(
  {
    resolveKey,
    loadBalance: createBalanceLoader(database, redis, config.GATEWAY_NAMESPACE),
    responses: new StoredResponses(database, config.RESPONSES_RETENTION_SECONDS),
    console: consoleService({
      database,
      announceRevocation,
      publishBalance,
      forgetCachedKeys,
      accountCaps: { keys: config.LEDGER_MAX_KEYS_PER_ACCOUNT, openTopUps: config.LEDGER_MAX_OPEN_TOPUPS_PER_ACCOUNT },
    }),
    admin: adminService({ database, announceRevocation, forgetCachedKeys }),
    operations: operationsService({ database, publishBalance }),
  },
  logger,
  config.LEDGER_HOST,
  config.LEDGER_GRPC_PORT,
  tokenSecret,
).catch((error: unknown) => fail("cannot start the gRPC server", error));
const app = createAdminApp({
  database,
  announceRevocation,
  forgetCachedKeys,
  resolveKey,
  publishBalance,
  adminToken: config.GATEWAY_ADMIN_TOKEN,
  logger,
});
const http = createServer(app);
const adminPort = await listenHttp(http, config.LEDGER_ADMIN_PORT, config.LEDGER_HOST).catch((error: unknown) =>
  fail("cannot start the admin HTTP server", error),
);
const consumer = await startUsageConsumer({
  nats,
  redis,
  namespace: config.GATEWAY_NAMESPACE,
  definition: configuredUsageDefinition(config),
  pool: usagePool,
  logger,
  metrics: new UsageMetrics(),
}).catch((error: unknown) => fail("cannot start consuming usage events", error));
const requestLogConsumer = await startRequestLogConsumer({
  nats,
  definition: configuredUsageDefinition(config).request_logs,
  pool: requestLogPool,
  logger,
}).catch((error: unknown) => fail("cannot start consuming request logs", error));

const retention = startPeriodicPurge(
  [requestLogRetention(database, config.LEDGER_LOG_RETENTION_DAYS), expiredResponsesPurge(database)],
  logger,
);

grpc.health.serving();
start.ready({ ports: { grpc: grpc.port, admin: adminPort } });

start.stopOnSignal(async () => {
  const since = Date.now();
  grpc.health.draining();
  // Finish billing first: the consumer's last batch must commit and be acked while
  // Postgres and NATS are still open.
  await Promise.all([consumer.stop(), requestLogConsumer.stop(), retention.stop()]);
  http.closeIdleConnections();
  await Promise.all([
    drainGrpcServer(grpc.server, grpc.health, shutdownTimings(config), since),
    new Promise<void>((resolve) => http.close(() => resolve())),
  ]);
  await nats.drain();
  await Promise.allSettled([
    database.$disconnect(),
    usagePool.end(),
    requestLogPool.end(),
    redis.isOpen ? redis.quit() : Promise.resolve(),
  ]);
});
