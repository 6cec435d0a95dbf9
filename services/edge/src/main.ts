import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  answerMalformedHttp,
  connectNats,
  createLogger,
  keepIdleConnections,
  serviceTokenSecret,
  shutdownTimings,
  startAdminServer,
  startTelemetry,
  stopOnSignal,
  watchProcessErrors,
} from "@gateway/platform";
import type { ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import { createApp } from "./app.js";
import { KeyCache } from "./auth/key-cache.js";
import { evictRevokedKeys } from "./auth/key-revocations.js";
import { createGrpcClients } from "./clients.js";
import { loadEdgeConfig } from "./config.js";
import { GeneratedFiles } from "./files/generated-files.js";
import { deferContinue } from "./http/accept-body.js";
import { Drain } from "./http/drain.js";
import { ResponseStore } from "./responses/response-store.js";

const config = loadEdgeConfig();
startTelemetry("edge", config);
const logger = createLogger("edge");
const processErrors = watchProcessErrors(logger);

const nats = await connectNats(config, "edge");
const keyCache = new KeyCache<ResolveKeyResponse>(config.KEY_CACHE_TTL_MS);
evictRevokedKeys(nats, config.GATEWAY_NAMESPACE, keyCache, logger);
const clients = createGrpcClients(config, serviceTokenSecret(config, logger));
const files = new GeneratedFiles({
  directory: config.GATEWAY_FILES_DIR,
  signingKey: config.FILE_URL_SIGNING_KEY,
  ttlSeconds: config.FILE_URL_TTL_SECONDS,
});
const responses = new ResponseStore(clients.ledger, config.RESPONSES_MAX_STORED_BYTES);
const drain = new Drain();
const app = createApp({
  drain,
  ...clients,
  nats,
  keyCache,
  logger,
  bodyLimitBytes: config.BODY_LIMIT,
  bodyBytesInFlight: config.BODY_BYTES_IN_FLIGHT,
  files,
  publicBaseUrl: config.PUBLIC_BASE_URL,
  trustedProxies: config.GATEWAY_TRUSTED_PROXIES,
  responses,
});

const admin = await startAdminServer(config.EDGE_HOST, config.EDGE_ADMIN_PORT);
const server = createServer(app);
deferContinue(server, app);
server.listen(config.GATEWAY_PORT, config.EDGE_HOST, () => {
  logger.info({ ports: { http: (server.address() as AddressInfo).port, admin: admin.port } }, "ready");
  processErrors.serving();
});
keepIdleConnections(server);
answerMalformedHttp(server);

stopOnSignal(logger, async () => {
  const since = Date.now();
  const { readinessDelayMs, graceMs } = shutdownTimings(config);
  drain.notReady();
  await sleep(readinessDelayMs);
  drain.refuseNew();
  // Idle keep-alive connections go now; their clients' next requests connect elsewhere.
  server.closeIdleConnections();
  if (!(await drain.idle(since + graceMs - Date.now()))) {
    logger.warn("grace period over: cutting the requests still in flight");
    drain.cutRemaining();
    // Time to write the error frames.
    await drain.idle(1_000);
  }
  server.close();
  server.closeAllConnections();
  await admin.close();
  clients.router.close();
  clients.ledger.close();
  clients.video.close();
  await nats.drain();
});
