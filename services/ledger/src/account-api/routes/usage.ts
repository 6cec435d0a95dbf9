import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../../admin/parse-input.js";
import { usageJson } from "../../admin/serialize.js";
import type { Database } from "../../database.js";
import { authenticatedAccountId } from "../authenticated-account.js";
import { findUsagePage } from "../find-usage-page.js";
import { listPage } from "../page.js";
import { listParams, periodInOrder, toListFilter } from "../query-params.js";

const usageQuery = periodInOrder(z.object(listParams(z.uuid())), true).transform(toListFilter);

export function usageRoutes(router: Router, database: Database): void {
  router.get("/usage", async (request, response) => {
    const filter = parseInput(usageQuery, request.query);
    const records = await findUsagePage(database, authenticatedAccountId(response), filter);
    response.json(listPage(records, filter.limit, (record) => record, usageJson));
  });
}
