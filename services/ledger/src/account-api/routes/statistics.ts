import type { Router } from "express";
import { parseInput } from "../../admin/parse-input.js";
import type { Database } from "../../database.js";
import { authenticatedAccountId } from "../authenticated-account.js";
import { statisticsQuery } from "../query-params.js";
import { readStatistics } from "../read-statistics.js";
import { statisticsJson } from "../serialize.js";

export function statisticsRoutes(router: Router, database: Database): void {
  router.get("/statistics", async (request, response) => {
    const query = parseInput(statisticsQuery, request.query);
    response.json(statisticsJson(await readStatistics(database, authenticatedAccountId(response), query)));
  });
}
