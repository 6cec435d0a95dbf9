import express, { type RequestHandler } from "express";
import type { Database } from "../database.js";
import { balanceRoutes } from "./routes/balance.js";
import { logRoutes } from "./routes/logs.js";
import { statisticsRoutes } from "./routes/statistics.js";
import { usageRoutes } from "./routes/usage.js";

export interface AccountApiDependencies {
  database: Database;
  /** Names the signed-in account (see authenticated-account.ts) or fails with a 401. */
  authenticate: RequestHandler;
}

/** The console's read-only API: everything it answers belongs to the signed-in account. */
export function accountApiRouter({ database, authenticate }: AccountApiDependencies): express.Router {
  const router = express.Router();
  router.use(authenticate);
  // Logs hold people's prompts: no shared cache may keep any of these answers.
  router.use((_request, response, next) => {
    response.set("cache-control", "no-store");
    next();
  });
  for (const routes of [balanceRoutes, usageRoutes, statisticsRoutes, logRoutes]) routes(router, database);
  return router;
}
