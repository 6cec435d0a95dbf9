import type { Logger, Redis } from "@gateway/shared";
import express, { type Express } from "express";
import { errorHandler, notFound } from "./http/console-error.js";
import type { Drain } from "./http/drain.js";
import { webApp } from "./http/web-app.js";
import type { Ledger } from "./ledger-client.js";
import type { RouterViews } from "./router-client.js";
import { type AccountRouteDependencies, accountRoutes } from "./routes/account-routes.js";
import { keyRoutes } from "./routes/key-routes.js";
import { priceListRoutes } from "./routes/price-list-routes.js";
import { routerViewRoutes } from "./routes/router-view-routes.js";
import { statisticsRoutes } from "./routes/statistics-routes.js";
import { topUpRoutes } from "./routes/topup-routes.js";
import { usageRoutes } from "./routes/usage-routes.js";
import { loadSession, requireSession } from "./sessions/require-session.js";
import { SessionCookie } from "./sessions/session-cookie.js";
import type { SessionLifetimes, SessionStore } from "./sessions/session-store.js";
import type { SignInProvider } from "./sign-in/identity.js";
import { PendingSignIns } from "./sign-in/pending-sign-ins.js";
import { signInRoutes } from "./sign-in/sign-in-routes.js";
import { type NotificationDependencies, notificationRoutes } from "./topups/notification-routes.js";
import type { PaymentMethod } from "./topups/payment-methods.js";

export interface ConsoleDependencies {
  ledger: Ledger;
  router: RouterViews;
  redis: Redis;
  namespace: string;
  sessions: SessionStore;
  lifetimes: SessionLifetimes;
  secureCookies: boolean;
  providers: SignInProvider[];
  adminIdentities: string[];
  keyGroups: string[];
  defaultLogCapture: string;
  payments: Omit<NotificationDependencies, "ledger" | "logger">;
  paymentMethods: PaymentMethod[];
  topUpExpiryMs: number;
  webDirectory: string;
  publicUrl: () => string;
  drain: Drain;
  logger: Logger;
}

export function createApp(deps: ConsoleDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.get("/healthz", (_request, response) => {
    response.json({ status: "ok" });
  });
  app.get("/readyz", (_request, response) => {
    const ready = deps.drain.isReady && deps.redis.isReady;
    response.status(ready ? 200 : 503).json({ status: ready ? "ok" : "not_ready" });
  });
  app.use(deps.drain.track);
  app.use((_request, response, next) => {
    // The app never needs to be framed, and it names its own sources.
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
  const accountDependencies: AccountRouteDependencies = {
    ledger: deps.ledger,
    sessions: deps.sessions,
    sessionCookie,
    adminIdentities: deps.adminIdentities,
    providers: deps.providers.map(({ id, name }) => ({ id, name })),
    defaultLogCapture: deps.defaultLogCapture,
  };
  const requireAdmin = accountRoutes(api, accountDependencies);
  routerViewRoutes(api, deps.router, requireAdmin);
  statisticsRoutes(api, deps.ledger);
  usageRoutes(api, deps.ledger);
  keyRoutes(api, deps.ledger, deps.keyGroups);
  topUpRoutes(api, {
    ledger: deps.ledger,
    methods: deps.paymentMethods,
    expiryMs: deps.topUpExpiryMs,
    logger: deps.logger,
  });
  api.use(() => {
    throw notFound("No such API route.");
  });
  app.use("/api", api);
  app.use(webApp(deps.webDirectory));
  app.use(errorHandler(deps.logger));
  return app;
}
