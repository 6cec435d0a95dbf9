import { join } from "node:path";
import {
  Admission,
  AdmissionLeases,
  observeUsageSpool,
  RateLimiter,
  Reservations,
  UsagePublisher,
  usageSpoolSettings,
} from "@gateway/billing";
import { watchCatalogueFile } from "@gateway/catalogue";
import { openCatalogue } from "@gateway/catalogue/store";
import {
  type AdminRoute,
  beginService,
  configuredUsageDefinition,
  connectNats,
  createRedis,
  drainGrpcServer,
  ensureUsageStream,
  failoverOptions,
  gatewayMeter,
  grpcTarget,
  insecureChannel,
  serviceClientOptions,
  serviceTokenSecret,
  shutdownTimings,
  startAdminServer,
} from "@gateway/platform";
import { LedgerServiceClient, LedgerServiceService } from "@gateway/proto/ledger/v1/ledger";
import { createAdapterRegistry } from "./adapters/adapter-registry.js";
import { CatalogueAdmin } from "./catalogue-admin/catalogue-admin.js";
import { catalogueAdminRoute } from "./catalogue-admin/catalogue-admin-http.js";
import { StoreChannelDisabler } from "./catalogue-admin/store-channel-disabler.js";
import { loadRouterConfig } from "./config.js";
import { FileStore } from "./media/file-store.js";
import { RouterMetrics } from "./metrics/router-metrics.js";
import { captureLevelOf } from "./request-log/capture-level.js";
import { InMemoryChannelDisabler, KeepRefusedKeys } from "./routing/channel-disabler.js";
import { ChannelHealth } from "./routing/channel-health.js";
import { channelKeyStates, KeyRotation } from "./routing/channel-keys.js";
import { startRouterServer } from "./server.js";
import { releaseUndelivered } from "./usage/release-undelivered.js";
import { loadEncodings } from "./usage/text-tokens.js";

const start = beginService("router", loadRouterConfig);
const { config, logger } = start;
const tokenSecret = serviceTokenSecret(config, logger);
// Production never answers from the simulator, nor lets image downloads reach its private address.
const simulatorAllowed = config.GATEWAY_ENV === "development";

const nats = await connectNats(config, "router").catch((error: unknown) =>
  start.fail("cannot reach NATS at NATS_URL", error),
);
// Set once the catalogue admin exists; catalogue swaps before then have no refusals to clear.
let storeDisabler: StoreChannelDisabler | undefined;
const catalogueTokenizers = (models: { tokenizer?: "o200k_base" | "cl100k_base" }[]) =>
  models.flatMap((model) => (model.tokenizer ? [model.tokenizer] : []));
const opened = await openCatalogue({
  path: config.CATALOGUE_PATH,
  sources: { env: process.env, simulatorUrl: simulatorAllowed ? config.SIMULATOR_URL : undefined },
  logger,
  nats,
  namespace: config.GATEWAY_NAMESPACE,
  databaseUrl: config.DATABASE_URL,
  encryptionKey: config.CATALOGUE_ENCRYPTION_KEY,
  pollMs: config.CATALOGUE_POLL_MS,
  owner: true,
  onSwap: (next) => {
    // A model added at run time may count its prompts with an encoding not loaded yet.
    loadEncodings(catalogueTokenizers(next.source.models));
    storeDisabler?.catalogueSwapped(next);
  },
});
const catalogue = opened.holder;
const catalogueAdmin = opened.live && new CatalogueAdmin(opened.live, logger);
const streams = configuredUsageDefinition(config);
const streamManager = await nats.jetstreamManager();
await ensureUsageStream(streamManager, streams);
await ensureUsageStream(streamManager, streams.request_logs);

// Longer than ledger's cache lookups: a timed-out reservation refuses the client's request.
const redis = createRedis(config.REDIS_URL, logger, "requests are refused until billing can reserve their cost", 2_000);
const ledger = new LedgerServiceClient(
  grpcTarget(config.LEDGER_URL),
  insecureChannel(),
  // Loading a balance copies it from Postgres into Redis under its version: a second run is harmless.
  { ...serviceClientOptions("router", tokenSecret), ...failoverOptions([LedgerServiceService.loadBalance]) },
);
const reservations = new Reservations(redis, ledger, config.GATEWAY_NAMESPACE, config.RESERVATION_TTL_MS, logger);
const rateLimits = new RateLimiter(redis, config.GATEWAY_NAMESPACE, config.RATE_LIMIT_LEASE_MS, logger);
const leases =
  config.ROUTER_ADMISSION_LEASE_MAX_MICROS > 0
    ? new AdmissionLeases(
        redis,
        reservations,
        rateLimits,
        config.GATEWAY_NAMESPACE,
        {
          maxMicros: BigInt(config.ROUTER_ADMISSION_LEASE_MAX_MICROS),
          lifeMs: config.ROUTER_ADMISSION_LEASE_MS,
          holdMs: config.RESERVATION_TTL_MS,
          orphanMs: config.ROUTER_ADMISSION_LEASE_ORPHAN_MS,
        },
        logger,
      )
    : undefined;
// Journaled: router's answer is the only record of what it must bill (video's tasks table is its own).
const usageSpool = usageSpoolSettings(config, "router");
const usage = new UsagePublisher(nats, config.GATEWAY_NAMESPACE, logger, {
  ...usageSpool,
  journal: { undelivered: releaseUndelivered(reservations) },
  requestLogs: { directory: join(usageSpool.directory, "request-logs"), maxBytes: config.REQUEST_LOG_SPOOL_MAX_BYTES },
});
observeUsageSpool(usage);

const adapterFor = createAdapterRegistry({
  imageFetch: {
    allowedPrivateHosts: [
      ...(simulatorAllowed ? [new URL(config.SIMULATOR_URL).host] : []),
      ...config.IMAGE_FETCH_ALLOWED_PRIVATE_HOSTS,
    ],
    maxBytes: config.IMAGE_FETCH_MAX_BYTES,
    maxRequestBytes: config.IMAGE_FETCH_MAX_REQUEST_BYTES,
    timeoutMs: config.IMAGE_FETCH_TIMEOUT_MS,
  },
});
const channelHealth = new ChannelHealth({
  failureThreshold: config.CIRCUIT_FAILURE_THRESHOLD,
  cooldownMs: config.CIRCUIT_COOLDOWN_MS,
});
// With the catalogue store, a channel whose every key was refused is disabled there, for every router.
storeDisabler =
  config.ROUTER_DISABLE_REFUSED_KEYS && catalogueAdmin
    ? new StoreChannelDisabler(catalogue, catalogueAdmin, logger)
    : undefined;
const disabler =
  storeDisabler ?? (config.ROUTER_DISABLE_REFUSED_KEYS ? new InMemoryChannelDisabler() : new KeepRefusedKeys());
loadEncodings(catalogueTokenizers(catalogue.current.source.models));
const { server, port, health, calls } = await startRouterServer(
  {
    catalogue,
    catalogueAdmin,
    usage,
    logger,
    files: new FileStore(config.GATEWAY_FILES_DIR, config.GATEWAY_FILES_KEEP_MS, logger),
    imageOutputTokensBound: config.ROUTER_IMAGE_OUTPUT_TOKENS_BOUND,
    adapterFor,
    admission: new Admission(redis, rateLimits, reservations),
    leases,
    rateLimits,
    health: channelHealth,
    keys: { rotation: new KeyRotation(disabler), disabler },
    metrics: new RouterMetrics(gatewayMeter(), channelHealth, () => channelKeyStates(catalogue.current, disabler)),
    retry: {
      maxAttempts: config.ROUTER_MAX_ATTEMPTS,
      baseDelayMs: config.ROUTER_RETRY_BASE_MS,
      maxDelayMs: config.ROUTER_RETRY_MAX_MS,
      deadlineMs: config.ROUTER_RETRY_DEADLINE_MS,
    },
    timeouts: {
      connectMs: config.VENDOR_CONNECT_TIMEOUT_MS,
      firstByteMs: config.VENDOR_FIRST_BYTE_TIMEOUT_MS,
      idleMs: config.VENDOR_IDLE_TIMEOUT_MS,
    },
    requestLog: {
      capture: captureLevelOf(config.GATEWAY_REQUEST_LOG_CAPTURE),
      maxBytes: config.GATEWAY_REQUEST_LOG_MAX_BYTES,
    },
  },
  config.ROUTER_HOST,
  config.ROUTER_PORT,
  tokenSecret,
  config.ROUTER_BODY_BYTES_IN_FLIGHT,
);
// Operators reload the catalogue without a restart (SIGHUP, or by changing the file, as a
// ConfigMap update does; with a store, the file is imported into it); a broken file keeps the old one.
const reloadCatalogue = () => void opened.reload();
process.on("SIGHUP", reloadCatalogue);
const fileWatch = watchCatalogueFile({ reload: reloadCatalogue }, config.CATALOGUE_PATH, logger);
// `pnpm gw` changes the catalogue here, behind the admin token; the console through gRPC.
const catalogueAdminApi: Record<string, AdminRoute> =
  catalogueAdmin && config.GATEWAY_ADMIN_TOKEN
    ? { "/admin/catalogue": catalogueAdminRoute(catalogueAdmin, config.GATEWAY_ADMIN_TOKEN, logger) }
    : {};
const admin = await startAdminServer(config.ROUTER_HOST, config.ROUTER_ADMIN_PORT, {}, catalogueAdminApi);
health.serving();
start.ready({ ports: { grpc: port, admin: admin.port } });

start.stopOnSignal(async () => {
  await drainGrpcServer(server, health, shutdownTimings(config), Date.now(), calls);
  // Calls cut at the end of the grace period report their usage a moment later.
  await calls.settled(2_000);
  await leases?.close();
  await admin.close();
  fileWatch.close();
  await opened.close();
  await usage.close();
  await nats.drain();
  ledger.close();
  await redis.quit().catch(() => undefined);
});
