import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../../admin/parse-input.js";
import type { Database } from "../../database.js";
import { utcDay } from "../../http/input-fields.js";
import { authenticatedAccountId } from "../authenticated-account.js";
import { modelParam, periodInOrder } from "../query-params.js";
import { readStatistics } from "../read-statistics.js";
import { statisticsJson } from "../serialize.js";

const statisticsQuery = periodInOrder(
  z.object({ from: utcDay.optional(), to: utcDay.optional(), model: modelParam }),
  false,
);

export function statisticsRoutes(router: Router, database: Database): void {
  router.get("/statistics", async (request, response) => {
    const query = parseInput(statisticsQuery, request.query);
    response.json(statisticsJson(await readStatistics(database, authenticatedAccountId(response), query)));
  });
}
