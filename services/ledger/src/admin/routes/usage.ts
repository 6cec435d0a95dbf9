import type { Router } from "express";
import { z } from "zod";
import { cursorParam } from "../../account-api/cursor.js";
import { findUsagePage } from "../../account-api/find-usage-page.js";
import { listPage } from "../../account-api/page.js";
import { findAccount } from "../../accounts/find-account.js";
import type { AdminDependencies } from "../dependencies.js";
import { parseInput } from "../parse-input.js";
import { accountIdOf } from "../path-ids.js";
import { usageJson } from "../serialize.js";

const usageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  cursor: cursorParam(z.uuid()).optional(),
});

export function usageRoutes(router: Router, { database }: AdminDependencies): void {
  /** One page of an account's usage, newest first; `next_cursor` continues where it ended. */
  router.get("/accounts/:accountId/usage", async (request, response) => {
    const accountId = accountIdOf(request);
    const { limit, cursor } = parseInput(usageQuery, request.query);
    await findAccount(database, accountId);
    const rows = await findUsagePage(database, accountId, { limit, after: cursor });
    response.json(listPage(rows, limit, (row) => row, usageJson));
  });
}
