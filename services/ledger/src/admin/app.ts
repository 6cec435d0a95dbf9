import { servePrometheusMetrics } from "@gateway/platform";
import express from "express";
import { authenticateWithApiKey } from "../account-api/authenticate-with-api-key.js";
import { accountApiRouter } from "../account-api/router.js";
import type { AdminDependencies } from "./dependencies.js";
import { handleErrors, unknownRoute } from "./handle-errors.js";
import { requireAdminToken } from "./require-admin-token.js";
import { accountRoutes } from "./routes/accounts.js";
import { codeRoutes } from "./routes/codes.js";
import { creditRoutes } from "./routes/credits.js";
import { keyRoutes } from "./routes/keys.js";
import { roleRoutes } from "./routes/roles.js";
import { usageRoutes } from "./routes/usage.js";

/**
 * The ledger's HTTP API: the operators' routes under /admin, every one behind the admin
 * token, and the account API under /v1/account, each request signed in as one account.
 */
export function createAdminApp(dependencies: AdminDependencies): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Unauthenticated liveness for probes; it reveals nothing.
  app.get("/healthz", (_request, response) => {
    response.json({ status: "ok" });
  });
  // Prometheus scrapes: counts by model, no account data; this port is the operators', never public.
  app.get("/metrics", servePrometheusMetrics);
  const admin = express.Router();
  admin.use(requireAdminToken(dependencies.adminToken));
  admin.use(express.json({ limit: "64kb" }));
  for (const routes of [accountRoutes, creditRoutes, keyRoutes, usageRoutes, codeRoutes, roleRoutes])
    routes(admin, dependencies);
  app.use("/admin", admin);
  const { database, resolveKey } = dependencies;
  app.use("/v1/account", accountApiRouter({ database, authenticate: authenticateWithApiKey(resolveKey) }));
  app.use(unknownRoute);
  app.use(handleErrors(dependencies.logger));
  return app;
}
