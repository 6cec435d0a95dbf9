import { hasNoNul } from "@gateway/shared";
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../../admin/parse-input.js";
import type { Database } from "../../database.js";
import { requestLogNotFound } from "../../ledger-errors.js";
import { logReadingAccountId } from "../authenticated-account.js";
import { findLoggedRequests, findRequestLogs, LOG_STATUSES } from "../find-request-logs.js";
import { listPage } from "../page.js";
import { listParams, periodInOrder, toListFilter } from "../query-params.js";
import { requestLogJson } from "../serialize.js";

const logsQuery = periodInOrder(
  z.object({ ...listParams(z.string()), status: z.enum(LOG_STATUSES).optional() }),
  true,
).transform(toListFilter);

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
    const requestId = String(request.params.requestId);
    // No stored id has a NUL, and Postgres would refuse to compare one.
    if (!hasNoNul(requestId)) throw requestLogNotFound(requestId);
    const [logged] = await findLoggedRequests(database, accountId, [requestId]);
    if (!logged) throw requestLogNotFound(requestId);
    response.json(requestLogJson(logged));
  });
}
