import express from "express";
import type { AdminDependencies } from "./dependencies.js";
import { handleErrors, unknownRoute } from "./handle-errors.js";
import { requireAdminToken } from "./require-admin-token.js";
import { accountRoutes } from "./routes/accounts.js";
import { creditRoutes } from "./routes/credits.js";
import { keyRoutes } from "./routes/keys.js";
import { usageRoutes } from "./routes/usage.js";

/** The operators' HTTP API under /admin, every route behind the admin token. */
export function createAdminApp(dependencies: AdminDependencies): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Unauthenticated liveness for probes; it reveals nothing.
  app.get("/healthz", (_request, response) => {
    response.json({ status: "ok" });
  });
  const admin = express.Router();
  admin.use(requireAdminToken(dependencies.adminToken));
  admin.use(express.json({ limit: "64kb" }));
  for (const routes of [accountRoutes, creditRoutes, keyRoutes, usageRoutes]) routes(admin, dependencies);
  app.use("/admin", admin);
  app.use(unknownRoute);
  app.use(handleErrors(dependencies.logger));
  return app;
}
