import type { Router } from "express";
import { z } from "zod";
import { listUsage } from "../../usage/list-usage.js";
import type { AdminDependencies } from "../dependencies.js";
import { parseInput } from "../parse-input.js";
import { accountIdOf } from "../path-ids.js";
import { usageJson } from "../serialize.js";

const usageQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(50) });

export function usageRoutes(router: Router, { database }: AdminDependencies): void {
  router.get("/accounts/:accountId/usage", async (request, response) => {
    const accountId = accountIdOf(request);
    const { limit } = parseInput(usageQuery, request.query);
    const records = await listUsage(database, accountId, limit);
    response.json({ object: "list", data: records.map(usageJson) });
  });
}
