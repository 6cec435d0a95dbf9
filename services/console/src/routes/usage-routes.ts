import type { Router } from "express";
import { notFound } from "../http/console-error.js";
import { listFilterOf } from "../http/list-query.js";
import { logDetailJson, logSummaryJson, usageJson } from "../http/to-json.js";
import type { Ledger } from "../ledger-client.js";
import { sessionOf } from "../sessions/require-session.js";
import { streamUsageCsv } from "./usage-csv.js";

/** Usage records (a page, or all of them as CSV) and request logs of the signed-in account. */
export function usageRoutes(router: Router, ledger: Ledger): void {
  router.get("/usage", async (request, response) => {
    const { filter, status } = listFilterOf(request.query);
    const page = await ledger.listUsage({ accountId: sessionOf(response).accountId, filter, status });
    response.json({ records: page.records.map(usageJson), nextCursor: page.nextCursor });
  });

  router.get("/usage.csv", async (request, response) => {
    const { filter, status } = listFilterOf({ ...request.query, limit: 500 });
    await streamUsageCsv(response, (cursor) =>
      ledger.listUsage({ accountId: sessionOf(response).accountId, filter: { ...filter, cursor }, status }),
    );
  });

  router.get("/logs", async (request, response) => {
    const { filter, status } = listFilterOf(request.query);
    const page = await ledger.listRequestLogs({ accountId: sessionOf(response).accountId, filter, status });
    response.json({ logs: page.logs.map(logSummaryJson), nextCursor: page.nextCursor });
  });

  router.get("/logs/:requestId", async (request, response) => {
    const requestId = request.params.requestId;
    if (requestId.length > 200) throw notFound("No such request log.");
    const log = await ledger.getRequestLog({ accountId: sessionOf(response).accountId, requestId });
    response.json(logDetailJson(log));
  });
}
