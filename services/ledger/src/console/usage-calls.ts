import { unaryHandler } from "@gateway/platform";
import type {
  ConsoleServiceServer,
  GetStatisticsRequest,
  ListRequestLogsRequest,
  ListUsageRequest,
  RequestLogRequest,
} from "@gateway/proto/ledger/v1/console";
import { findLoggedRequest, findRequestLogs } from "../account-api/find-request-logs.js";
import { findUsagePage } from "../account-api/find-usage-page.js";
import { listPage } from "../account-api/page.js";
import { logsQuery, statisticsQuery, usageQuery } from "../account-api/query-params.js";
import { readStatistics } from "../account-api/read-statistics.js";
import { parseInput } from "../admin/parse-input.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { accountIdOf, listQuery, nextCursor } from "./requests.js";
import { requestLogMessage, statisticsRow, usageMessage } from "./to-proto.js";

type UsageCalls = Pick<ConsoleServiceServer, "listUsage" | "getStatistics" | "listRequestLogs" | "getRequestLog">;

/**
 * What an account used: its usage records, daily statistics and logged requests. The reads are
 * the account API's queries, checked by the same schemas.
 */
export function usageCalls({ database }: ConsoleDependencies): UsageCalls {
  return {
    listUsage: unaryHandler(async (request: ListUsageRequest) => {
      const accountId = accountIdOf(request.accountId);
      const filter = parseInput(usageQuery, { ...listQuery(request.filter), status: request.status });
      const page = listPage(await findUsagePage(database, accountId, filter), filter.limit, (row) => row, usageMessage);
      return { records: page.data, nextCursor: nextCursor(page) };
    }),
    getStatistics: unaryHandler(async (request: GetStatisticsRequest) => {
      const accountId = accountIdOf(request.accountId);
      const query = parseInput(statisticsQuery, {
        from: request.fromDay || undefined,
        to: request.toDay || undefined,
        model: request.model,
      });
      const { days, totals } = await readStatistics(database, accountId, query);
      return { rows: days.map(statisticsRow), totals: statisticsRow(totals) };
    }),
    listRequestLogs: unaryHandler(async (request: ListRequestLogsRequest) => {
      const accountId = accountIdOf(request.accountId);
      const filter = parseInput(logsQuery, { ...listQuery(request.filter), status: request.status });
      const logged = await findRequestLogs(database, accountId, filter);
      const positionOf = ({ log }: (typeof logged)[number]) => ({ createdAt: log.createdAt, id: log.requestId });
      const page = listPage(logged, filter.limit, positionOf, requestLogMessage);
      return { logs: page.data, nextCursor: nextCursor(page) };
    }),
    getRequestLog: unaryHandler(async (request: RequestLogRequest) => {
      const accountId = accountIdOf(request.accountId);
      return requestLogMessage(await findLoggedRequest(database, accountId, request.requestId));
    }),
  };
}
