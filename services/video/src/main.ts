import {
  Admission,
  observeUsageSpool,
  RateLimiter,
  Reservations,
  UsagePublisher,
  usageSpoolSettings,
} from "@gateway/billing";
import { watchCatalogueFile } from "@gateway/catalogue";
import { type OpenedCatalogue, openCatalogue } from "@gateway/catalogue/store";
import {
  beginService,
  configuredUsageDefinition,
  connectNats,
  createRedis,
  createSqlPool,
  drainGrpcServer,
  ensureUsageStream,
  failoverOptions,
  grpcTarget,
  insecureChannel,
  requireMigrated,
  serviceClientOptions,
  serviceTokenSecret,
  shutdownTimings,
  startAdminServer,
} from "@gateway/platform";
import { LedgerServiceClient, LedgerServiceService } from "@gateway/proto/ledger/v1/ledger";
import { type CallbackDeliveries, startCallbackDeliveries } from "./callbacks/deliver-callbacks.js";
import { Clock } from "./clock.js";
import { loadVideoConfig } from "./config.js";
import { startGrpcServer } from "./grpc-server.js";
import { VideoMetrics } from "./metrics/video-metrics.js";
import { pendingMigrations } from "./migrate.js";
import { openVideoStorage } from "./storage/open-video-storage.js";
import { OpenAIVideosClient } from "./vendor/openai-videos-client.js";
import { startWorkerLoop, type WorkerLoop } from "./worker/worker-loop.js";

// Callback deliveries in flight at once per process; each ends by its deadline.
const CALLBACK_CONCURRENCY = 16;
// Postgres connections for submits and reads: each holds one for a single statement.
const REQUEST_CONNECTIONS = 4;
// On top, for the workers' leases, sweeps and callbacks (one statement each too), so a burst of
// them does not hold up submits.
const WORKER_CONNECTIONS = 10;
// How often the catalogue store's revision is checked, should a change message be missed.
const CATALOGUE_POLL_MS = 5_000;

const start = beginService("video", loadVideoConfig);
const { config, logger } = start;
// Annotated so the compiler knows a call ends the process.
const fail: (message: string, error?: unknown) => never = start.fail;
let tokenSecret: string | undefined;
try {
  tokenSecret = serviceTokenSecret(config, logger);
} catch (error) {
  fail("cannot sign or check internal calls", error);
}
await requireMigrated(start, pendingMigrations, "pnpm --filter @gateway/video migrate");

const clock = new Clock(config.VIDEO_CLOCK_OFFSET_MS);
const pool = createSqlPool(
  config.DATABASE_URL,
  REQUEST_CONNECTIONS + (config.VIDEO_WORKERS ? WORKER_CONNECTIONS : 0),
  logger,
);
const storage = await openVideoStorage(config).catch((error: unknown) =>
  fail("cannot use the video storage (check the VIDEO_S3_* settings)", error),
);
const links = { signingKey: config.VIDEO_URL_SIGNING_KEY, ttlSeconds: config.VIDEO_URL_TTL_SECONDS };
const nats = await connectNats(config, "video").catch((error: unknown) => fail("cannot reach NATS at NATS_URL", error));
// Router owns the catalogue store; video follows it (the file alone until the store is migrated).
let opened: OpenedCatalogue;
try {
  opened = await openCatalogue({
    path: config.CATALOGUE_PATH,
    // Production never answers from the simulator: channels without a vendor key are disabled.
    sources: {
      env: process.env,
      simulatorUrl: config.GATEWAY_ENV === "development" ? config.SIMULATOR_URL : undefined,
    },
    logger,
    nats,
    namespace: config.GATEWAY_NAMESPACE,
    databaseUrl: config.DATABASE_URL,
    encryptionKey: config.CATALOGUE_ENCRYPTION_KEY,
    pollMs: CATALOGUE_POLL_MS,
    owner: false,
  });
} catch (error) {
  fail("cannot load the catalogue", error);
}
const catalogue = opened.holder;
await ensureUsageStream(await nats.jetstreamManager(), configuredUsageDefinition(config));
const usage = new UsagePublisher(
  nats.jetstream(),
  config.GATEWAY_NAMESPACE,
  logger,
  usageSpoolSettings(config, "video"),
);
observeUsageSpool(usage);
const metrics = new VideoMetrics(pool);

const redis = createRedis(config.REDIS_URL, logger, "video submits are refused until billing can reserve their cost");
const ledger = new LedgerServiceClient(
  grpcTarget(config.LEDGER_URL),
  insecureChannel(),
  // Loading a balance copies it from Postgres into Redis under its version: a second run is harmless.
  { ...serviceClientOptions("video", tokenSecret), ...failoverOptions([LedgerServiceService.loadBalance]) },
);
// Held past the task time-out, so a task that finishes at the last moment is still covered until ledger settles it.
const reservationTtlMs = config.VIDEO_TASK_TIMEOUT_MS + 10 * 60_000;
const reservations = new Reservations(redis, ledger, config.GATEWAY_NAMESPACE, reservationTtlMs, logger);
// A submit holds its concurrency slot only while it is answered; a minute covers any stall.
const rateLimits = new RateLimiter(redis, config.GATEWAY_NAMESPACE, 60_000, logger);

const grpc = await startGrpcServer(
  {
    pool,
    clock,
    catalogue,
    links,
    storage,
    admission: new Admission(redis, rateLimits, reservations),
    reservationTtlMs,
    signingKey: config.VIDEO_URL_SIGNING_KEY,
    logger,
  },
  {
    host: config.VIDEO_HOST,
    port: config.VIDEO_GRPC_PORT,
    testMode: config.VIDEO_TEST_MODE,
    serviceTokenSecret: tokenSecret,
  },
).catch((error: unknown) => fail("cannot start the gRPC server", error));

let worker: WorkerLoop | undefined;
let callbacks: CallbackDeliveries | undefined;
if (config.VIDEO_WORKERS) {
  worker = startWorkerLoop(
    {
      pool,
      clock,
      catalogue,
      storage,
      vendor: new OpenAIVideosClient(config.VIDEO_VENDOR_TIMEOUT_MS),
      usage,
      reservations,
      logger,
      workerId: config.VIDEO_WORKER_ID,
      leaseMs: config.VIDEO_LEASE_MS,
      pollInitialMs: config.VIDEO_POLL_INITIAL_MS,
      pollMaxMs: config.VIDEO_POLL_MAX_MS,
      metrics,
    },
    {
      concurrency: config.VIDEO_WORKER_CONCURRENCY,
      tickMs: config.VIDEO_WORKER_TICK_MS,
      taskTimeoutMs: config.VIDEO_TASK_TIMEOUT_MS,
    },
  );
  callbacks = startCallbackDeliveries(
    {
      pool,
      clock,
      links,
      logger,
      signingKey: config.VIDEO_CALLBACK_SIGNING_KEY,
      // Covers connecting, sending and the receiver's answer, however slowly it trickles in.
      policy: { allowedPrivateHosts: config.VIDEO_CALLBACK_ALLOWED_PRIVATE_HOSTS, deadlineMs: 10_000 },
      maxAttempts: config.VIDEO_CALLBACK_MAX_ATTEMPTS,
      baseDelayMs: config.VIDEO_CALLBACK_BASE_DELAY_MS,
    },
    { tickMs: config.VIDEO_WORKER_TICK_MS, concurrency: CALLBACK_CONCURRENCY },
  );
}

const admin = await startAdminServer(config.VIDEO_HOST, config.VIDEO_ADMIN_PORT).catch((error: unknown) =>
  fail("cannot start the admin HTTP server", error),
);

// Operators reload the catalogue without a restart (SIGHUP, or by changing the file, as a
// ConfigMap update does); a broken file keeps the old one.
const reloadCatalogue = () => void opened.reload();
process.on("SIGHUP", reloadCatalogue);
watchCatalogueFile({ reload: reloadCatalogue }, config.CATALOGUE_PATH, logger);
grpc.health.serving();
start.ready({ ports: { grpc: grpc.port, admin: admin.port }, worker_id: worker ? config.VIDEO_WORKER_ID : null });

start.stopOnSignal(async () => {
  // Submits keep being answered while workers finish; both end within the grace period.
  await Promise.all([
    drainGrpcServer(grpc.server, grpc.health, shutdownTimings(config)),
    worker?.stop(),
    callbacks?.stop(),
  ]);
  await admin.close();
  await usage.close();
  await nats.drain();
  ledger.close();
  await redis.quit().catch(() => undefined);
  await pool.end().catch(() => undefined);
});
