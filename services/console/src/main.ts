import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { alipayConfigFromEnv, wechatPayConfigFromEnv } from "@gateway/payments";
import {
  beginService,
  createRedis,
  drainHttpServer,
  HttpDrain,
  listenHttp,
  serviceTokenSecret,
  shutdownTimings,
  startAdminServer,
} from "@gateway/platform";
import type { Response } from "express";
import { createApp } from "./app.js";
import { loadConsoleConfig } from "./config.js";
import { connectLedger, connectOperations } from "./ledger-client.js";
import { paymentSetup } from "./payment-setup.js";
import { connectRouter } from "./router-client.js";
import { SessionStore } from "./sessions/session-store.js";
import { signInProviders } from "./sign-in/providers.js";
import { reconcileOnce, runReconcileJob } from "./topups/reconcile-job.js";

const start = beginService("console", loadConsoleConfig);
const { config, logger, fail } = start;

let tokenSecret: string | undefined;
try {
  tokenSecret = serviceTokenSecret(config, logger);
} catch (error) {
  fail("cannot sign internal calls", error);
}
const development = config.GATEWAY_ENV === "development";
let publicUrl = config.CONSOLE_PUBLIC_URL?.replace(/\/+$/, "") ?? "";
const payments = (() => {
  try {
    return paymentSetup(
      { wechat: wechatPayConfigFromEnv(), alipay: alipayConfigFromEnv() },
      () => publicUrl,
      development,
    );
  } catch (error) {
    return fail("invalid payment settings", error);
  }
})();

const redis = createRedis(config.REDIS_URL, logger, "sign-ins and sessions fail until it is back");
const { ledger, ledgerAdmin, close: closeLedger } = connectLedger(config.LEDGER_URL, tokenSecret);
const { operations, close: closeOperations } = connectOperations(config.LEDGER_URL, tokenSecret);
const { router, catalogueEditor, close: closeRouter } = connectRouter(config.ROUTER_URL, tokenSecret);
const lifetimes = { idleSeconds: config.CONSOLE_SESSION_IDLE_SECONDS, maxSeconds: config.CONSOLE_SESSION_MAX_SECONDS };
const drain = new HttpDrain<Response>((response) =>
  response.status(503).json({ error: { code: "shutting_down", message: "The console is restarting; retry." } }),
);
const app = createApp({
  ledger,
  operations,
  ledgerAdmin,
  router,
  catalogueEditor,
  redis,
  namespace: config.GATEWAY_NAMESPACE,
  sessions: new SessionStore(redis, config.GATEWAY_NAMESPACE, lifetimes),
  lifetimes,
  secureCookies: !development,
  providers: signInProviders(config),
  adminIdentities: config.CONSOLE_ADMIN_IDENTITIES,
  keyGroups: config.CONSOLE_KEY_GROUPS,
  defaultLogCapture: config.GATEWAY_REQUEST_LOG_CAPTURE,
  payments: { wechat: payments.wechat, alipay: payments.alipay },
  paymentMethods: payments.methods,
  topUpExpiryMs: config.CONSOLE_TOPUP_EXPIRY_MS,
  reconcile: { closeGraceMs: config.CONSOLE_RECONCILE_CLOSE_GRACE_MS },
  redeemLimits: {
    failuresPerAccount: config.CONSOLE_REDEEM_FAILURES_PER_ACCOUNT,
    failuresPerAddress: config.CONSOLE_REDEEM_FAILURES_PER_ADDRESS,
    windowSeconds: config.CONSOLE_REDEEM_WINDOW_SECONDS,
  },
  trustedProxies: config.CONSOLE_TRUSTED_PROXIES,
  webDirectory: config.CONSOLE_WEB_DIR ?? fileURLToPath(new URL("../web/dist", import.meta.url)),
  publicUrl: () => publicUrl,
  drain,
  logger,
});

const admin = await startAdminServer(config.CONSOLE_HOST, config.CONSOLE_ADMIN_PORT).catch((error: unknown) =>
  fail("cannot start the admin HTTP server", error),
);
const server = createServer(app);
const port = await listenHttp(server, config.CONSOLE_PORT, config.CONSOLE_HOST).catch((error: unknown) =>
  fail("cannot listen on CONSOLE_PORT", error),
);
const host = config.CONSOLE_HOST.includes(":") ? `[${config.CONSOLE_HOST}]` : config.CONSOLE_HOST;
publicUrl ||= `http://${host}:${port}`;

const reconcile = new AbortController();
const reconciling = runReconcileJob(
  () =>
    reconcileOnce(
      ledger,
      payments.methods,
      {
        intervalMs: config.CONSOLE_RECONCILE_INTERVAL_MS,
        afterMs: config.CONSOLE_RECONCILE_AFTER_MS,
        closeGraceMs: config.CONSOLE_RECONCILE_CLOSE_GRACE_MS,
      },
      logger,
    ),
  config.CONSOLE_RECONCILE_INTERVAL_MS,
  reconcile.signal,
  logger,
);
start.ready({ ports: { http: port, admin: admin.port }, publicUrl });

start.stopOnSignal(async () => {
  reconcile.abort();
  await drainHttpServer(server, drain, shutdownTimings(config), logger);
  await reconciling;
  await admin.close();
  closeLedger();
  closeOperations();
  closeRouter();
  await redis.quit().catch(() => undefined);
});
