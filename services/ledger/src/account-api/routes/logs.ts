import type { Router } from "express";
import { parseInput } from "../../admin/parse-input.js";
import type { Database } from "../../database.js";
import { logReadingAccountId } from "../authenticated-account.js";
import { findLoggedRequest, findRequestLogs } from "../find-request-logs.js";
import { listPage } from "../page.js";
import { logsQuery } from "../query-params.js";
import { requestLogJson } from "../serialize.js";

export function logRoutes(router: Router, database: Database): void {
  router.get("/logs", async (request, response) => {
    const accountId = logReadingAccountId(response);
    const filter = parseInput(logsQuery, request.query);
    const logged = await findRequestLogs(database, accountId, filter);
    const positionOf = ({ log }: (typeof logged)[number]) => ({ createdAt: log.createdAt, id: log.requestId });
    response.json(listPage(logged, filter.limit, positionOf, requestLogJson));
  });

  /** Another account's request id is answered exactly like an unknown one. */
  router.get("/logs/:requestId", async (request, response) => {
    const accountId = logReadingAccountId(response);
    response.json(requestLogJson(await findLoggedRequest(database, accountId, String(request.params.requestId))));
  });
}
