import type { HttpDrain, Logger, Redis, TrustedProxies } from "@gateway/platform";
import express, { type Express, type Response } from "express";
import { type RedeemLimits, RedeemThrottle } from "./codes/redeem-throttle.js";
import { errorHandler, notFound } from "./http/console-error.js";
import { webApp } from "./http/web-app.js";
import type { Ledger, LedgerAdmin, Operations } from "./ledger-client.js";
import type { CatalogueEditor, RouterViews } from "./router-client.js";
import { type AccountRouteDependencies, accountRoutes } from "./routes/account-routes.js";
import { adminAccountRoutes } from "./routes/admin-account-routes.js";
import { adminRoleRoutes } from "./routes/admin-role-routes.js";
import { auditRoutes } from "./routes/audit-routes.js";
import { catalogueEditRoutes } from "./routes/catalogue-edit-routes.js";
import { codeRoutes } from "./routes/code-routes.js";
import { keyRoutes } from "./routes/key-routes.js";
import { operationsRoutes } from "./routes/operations-routes.js";
import { orderRoutes } from "./routes/order-routes.js";
import { priceListRoutes } from "./routes/price-list-routes.js";
import { routerViewRoutes } from "./routes/router-view-routes.js";
import { statisticsRoutes } from "./routes/statistics-routes.js";
import { topUpRoutes } from "./routes/topup-routes.js";
import { usageRoutes } from "./routes/usage-routes.js";
import { operatorGuards } from "./sessions/operator-roles.js";
import { loadSession, requireSession } from "./sessions/require-session.js";
import { SessionCookie } from "./sessions/session-cookie.js";
import type { SessionLifetimes, SessionStore } from "./sessions/session-store.js";
import type { SignInProvider } from "./sign-in/identity.js";
import { PendingSignIns } from "./sign-in/pending-sign-ins.js";
import { signInRoutes } from "./sign-in/sign-in-routes.js";
import { type NotificationDependencies, notificationRoutes } from "./topups/notification-routes.js";
import type { PaymentMethod } from "./topups/payment-methods.js";
import type { ReconcileSettings } from "./topups/reconcile-job.js";

export interface ConsoleDependencies {
  ledger: Ledger;
  operations: Operations;
  ledgerAdmin: LedgerAdmin;
  router: RouterViews;
  catalogueEditor: CatalogueEditor;
  redis: Redis;
  namespace: string;
  sessions: SessionStore;
  lifetimes: SessionLifetimes;
  secureCookies: boolean;
  providers: SignInProvider[];
  /** Admins at start-up, whatever ledger's roles say (CONSOLE_ADMIN_IDENTITIES). */
  adminIdentities: string[];
  keyGroups: string[];
  defaultLogCapture: string;
  payments: Omit<NotificationDependencies, "ledger" | "logger">;
  paymentMethods: PaymentMethod[];
  topUpExpiryMs: number;
  reconcile: Pick<ReconcileSettings, "closeGraceMs">;
  redeemLimits: RedeemLimits;
  /** Who may tell the console the client's address (CONSOLE_TRUSTED_PROXIES); false: no one. */
  trustedProxies: TrustedProxies;
  webDirectory: string;
  publicUrl: () => string;
  drain: HttpDrain<Response>;
  logger: Logger;
}

/**
 * Scripts, styles, data and frames from the console itself only: an injected script could not
 * run, load or send anywhere. Inline style attributes stay allowed: Mantine sets them (and
 * writes its theme's variables into a <style> element), and styles cannot run code.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join("; ");

export function createApp(deps: ConsoleDependencies): Express {
  const app = express();
  app.set("trust proxy", deps.trustedProxies);
  app.disable("x-powered-by");
  app.set("etag", false);
  app.get("/healthz", (_request, response) => {
    response.json({ status: "ok" });
  });
  app.get("/readyz", (_request, response) => {
    const ready = deps.drain.ready && deps.redis.isReady;
    response.status(ready ? 200 : 503).json({ status: ready ? "ok" : "not_ready" });
  });
  app.use(deps.drain.admit);
  app.use((_request, response, next) => {
    // The app never needs to be framed, and it names its own sources.
    response.setHeader("content-security-policy", contentSecurityPolicy);
    response.setHeader("x-frame-options", "DENY");
    response.setHeader("x-content-type-options", "nosniff");
    response.setHeader("referrer-policy", "same-origin");
    next();
  });

  const api = express.Router();
  const publicOrigin = () => new URL(deps.publicUrl()).origin;
  const sessionCookie = new SessionCookie(deps.secureCookies);
  const load = loadSession(deps.sessions, sessionCookie);
  // Before the JSON parser: the providers' bodies are verified byte for byte. No session, no CSRF token.
  notificationRoutes(api, { ledger: deps.ledger, logger: deps.logger, ...deps.payments });
  api.use(
    "/auth",
    signInRoutes({
      providers: deps.providers,
      ledger: deps.ledger,
      ledgerAdmin: deps.ledgerAdmin,
      sessions: deps.sessions,
      lifetimes: deps.lifetimes,
      sessionCookie,
      pending: new PendingSignIns(deps.secureCookies),
      loadSession: load,
      publicUrl: deps.publicUrl,
      logger: deps.logger,
    }),
  );
  api.use(express.json({ limit: "64kb" }));
  // Prices are public: no session.
  priceListRoutes(api, deps.router);
  api.use(requireSession(load, publicOrigin));
  const guards = operatorGuards(deps.ledger, deps.ledgerAdmin, deps.adminIdentities);
  const accountDependencies: AccountRouteDependencies = {
    ledger: deps.ledger,
    sessions: deps.sessions,
    sessionCookie,
    guards,
    providers: deps.providers.map(({ id, name }) => ({ id, name })),
    defaultLogCapture: deps.defaultLogCapture,
  };
  accountRoutes(api, accountDependencies);
  // Support reads what admins read.
  routerViewRoutes(api, deps.router, guards.requireOperator);
  catalogueEditRoutes(api, deps.catalogueEditor, guards);
  adminAccountRoutes(api, {
    ledger: deps.ledger,
    ledgerAdmin: deps.ledgerAdmin,
    sessions: deps.sessions,
    guards,
    keyGroups: deps.keyGroups,
    defaultLogCapture: deps.defaultLogCapture,
  });
  adminRoleRoutes(api, deps.ledgerAdmin, guards);
  auditRoutes(api, deps.ledgerAdmin, guards);
  statisticsRoutes(api, deps.ledger);
  usageRoutes(api, deps.ledger);
  keyRoutes(api, deps.ledger, deps.keyGroups);
  topUpRoutes(api, {
    ledger: deps.ledger,
    methods: deps.paymentMethods,
    expiryMs: deps.topUpExpiryMs,
    reconcile: deps.reconcile,
    logger: deps.logger,
  });
  const { operations, logger } = deps;
  // Without a trusted proxy every customer behind the ingress shares its address: counted per
  // account there, one account's wrong codes cannot lock the others out.
  const addressAlone = deps.trustedProxies !== false;
  const throttle = new RedeemThrottle(deps.redis, deps.namespace, { ...deps.redeemLimits, addressAlone });
  // Support reads and checks orders; making and revoking codes is for admins (http/admin-guards.ts).
  const operationGuards = { staff: guards.requireOperator, admin: guards.requireAdmin, actorOf: guards.actorOf };
  codeRoutes(api, { operations, throttle }, operationGuards);
  const orders = { ledger: deps.ledger, operations, methods: deps.paymentMethods, reconcile: deps.reconcile, logger };
  orderRoutes(api, orders, operationGuards);
  operationsRoutes(api, operations, operationGuards);
  api.use(() => {
    throw notFound("No such API route.");
  });
  app.use("/api", api);
  app.use(webApp(deps.webDirectory));
  app.use(errorHandler(deps.logger));
  return app;
}
