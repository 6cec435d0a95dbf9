import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { alipayConfigFromEnv, wechatPayConfigFromEnv } from "@gateway/payments";
import {
  answerMalformedHttp,
  beginService,
  createRedis,
  keepIdleConnections,
  serviceTokenSecret,
  shutdownTimings,
  startAdminServer,
  stopOnSignal,
} from "@gateway/platform";
import { createApp } from "./app.js";
import { loadConsoleConfig } from "./config.js";
import { Drain } from "./http/drain.js";
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
const drain = new Drain();
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
  webDirectory: config.CONSOLE_WEB_DIR ?? fileURLToPath(new URL("../web/dist", import.meta.url)),
  publicUrl: () => publicUrl,
  drain,
  logger,
});

const admin = await startAdminServer(config.CONSOLE_HOST, config.CONSOLE_ADMIN_PORT).catch((error: unknown) =>
  fail("cannot start the admin HTTP server", error),
);
const server = createServer(app);
await new Promise<void>((resolve) => {
  server.once("error", (error) => fail("cannot listen on CONSOLE_PORT", error));
  server.listen(config.CONSOLE_PORT, config.CONSOLE_HOST, resolve);
});
const port = (server.address() as AddressInfo).port;
const host = config.CONSOLE_HOST.includes(":") ? `[${config.CONSOLE_HOST}]` : config.CONSOLE_HOST;
publicUrl ||= `http://${host}:${port}`;
keepIdleConnections(server);
answerMalformedHttp(server);

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
logger.info({ ports: { http: port, admin: admin.port }, publicUrl }, "ready");
start.serving();

stopOnSignal(logger, async () => {
  const since = Date.now();
  const { readinessDelayMs, graceMs } = shutdownTimings(config);
  drain.notReady();
  reconcile.abort();
  await sleep(readinessDelayMs);
  drain.refuseNew();
  server.closeIdleConnections();
  if (!(await drain.idle(since + graceMs - Date.now()))) logger.warn("grace period over: closing the rest");
  server.close();
  server.closeAllConnections();
  await reconciling;
  await admin.close();
  closeLedger();
  closeOperations();
  closeRouter();
  await redis.quit().catch(() => undefined);
});
