import type { Router } from "express";
import { parseInput } from "../../admin/parse-input.js";
import { usageJson } from "../../admin/serialize.js";
import type { Database } from "../../database.js";
import { authenticatedAccountId } from "../authenticated-account.js";
import { findUsagePage } from "../find-usage-page.js";
import { listPage } from "../page.js";
import { usageQuery } from "../query-params.js";

export function usageRoutes(router: Router, database: Database): void {
  router.get("/usage", async (request, response) => {
    const filter = parseInput(usageQuery, request.query);
    const records = await findUsagePage(database, authenticatedAccountId(response), filter);
    response.json(listPage(records, filter.limit, (record) => record, usageJson));
  });
}
