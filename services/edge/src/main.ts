import { createServer } from "node:http";
import {
  beginService,
  connectNats,
  drainHttpServer,
  HttpDrain,
  listenHttp,
  serviceTokenSecret,
  serviceUnavailable,
  shutdownTimings,
  startAdminServer,
} from "@gateway/platform";
import type { ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import type { Response } from "express";
import { createApp } from "./app.js";
import { KeyCache } from "./auth/key-cache.js";
import { evictRevokedKeys } from "./auth/key-revocations.js";
import { createGrpcClients } from "./clients.js";
import { loadEdgeConfig } from "./config.js";
import { GeneratedFiles } from "./files/generated-files.js";
import { deferContinue } from "./http/accept-body.js";
import { sendError } from "./http/send-error.js";
import { ResponseStore } from "./responses/response-store.js";

const start = beginService("edge", loadEdgeConfig);
const { config, logger } = start;

const nats = await connectNats(config, "edge").catch((error: unknown) =>
  start.fail("cannot reach NATS at NATS_URL", error),
);
const keyCache = new KeyCache<ResolveKeyResponse>(config.KEY_CACHE_TTL_MS);
evictRevokedKeys(nats, config.GATEWAY_NAMESPACE, keyCache, logger);
const clients = createGrpcClients(config, serviceTokenSecret(config, logger));
const files = new GeneratedFiles({
  directory: config.GATEWAY_FILES_DIR,
  signingKey: config.FILE_URL_SIGNING_KEY,
  ttlSeconds: config.FILE_URL_TTL_SECONDS,
});
const responses = new ResponseStore(clients.storedResponses, config.RESPONSES_MAX_STORED_BYTES);
const drain = new HttpDrain<Response>((response) =>
  sendError(response, serviceUnavailable("This gateway instance is shutting down. Please retry.")),
);
const app = createApp({
  drain,
  ...clients,
  nats,
  keyCache,
  logger,
  bodyLimitBytes: config.BODY_LIMIT,
  bodyBytesInFlight: config.BODY_BYTES_IN_FLIGHT,
  conversationLimits: { parts: config.REQUEST_MAX_PARTS, toolCalls: config.REQUEST_MAX_TOOL_CALLS },
  files,
  publicBaseUrl: config.PUBLIC_BASE_URL,
  trustedProxies: config.GATEWAY_TRUSTED_PROXIES,
  responses,
});

const admin = await startAdminServer(config.EDGE_HOST, config.EDGE_ADMIN_PORT);
const server = createServer(app);
deferContinue(server, app);
const port = await listenHttp(server, config.GATEWAY_PORT, config.EDGE_HOST).catch((error: unknown) =>
  start.fail("cannot listen on GATEWAY_PORT", error),
);
start.ready({ ports: { http: port, admin: admin.port } });

start.stopOnSignal(async () => {
  await drainHttpServer(server, drain, shutdownTimings(config), logger);
  await admin.close();
  clients.router.close();
  clients.ledger.close();
  clients.storedResponses.close();
  clients.video.close();
  await nats.drain();
});
