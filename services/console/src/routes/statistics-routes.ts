import type { StatisticsRow } from "@gateway/proto/ledger/v1/console";
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/console-error.js";
import { dayOf, utcDay } from "../http/list-query.js";
import type { Ledger } from "../ledger-client.js";
import { sessionOf } from "../sessions/require-session.js";

const dayMs = 86_400_000;

const totals = (rows: StatisticsRow[]) => ({
  requests: rows.reduce((sum, row) => sum + row.requests, 0),
  promptTokens: rows.reduce((sum, row) => sum + row.promptTokens, 0),
  completionTokens: rows.reduce((sum, row) => sum + row.completionTokens, 0),
  costMicros: rows.reduce((sum, row) => sum + row.costMicros, 0),
});

/** Rows (one per day and model) summed by `key`, in the order the keys first appear or as `keys` lists them. */
function sumBy(rows: StatisticsRow[], key: (row: StatisticsRow) => string, keys: string[] = []) {
  const groups = new Map<string, StatisticsRow[]>(keys.map((name) => [name, []]));
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return [...groups].map(([name, grouped]) => ({ name, ...totals(grouped) }));
}

/** Every UTC day from `from` to `to`, both inclusive. */
function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(from); at <= Date.parse(to); at += dayMs) days.push(dayOf(new Date(at)));
  return days;
}

// The bound holds for the range as resolved: an omitted `to` is today, an omitted `from` 29 days before `to`.
const statisticsQuery = z
  .object({ from: utcDay.optional(), to: utcDay.optional(), model: z.string().min(1).max(256).optional() })
  .transform(({ from, to, model }) => {
    const last = to ?? dayOf(new Date());
    return { from: from ?? dayOf(new Date(Date.parse(last) - 29 * dayMs)), to: last, model };
  })
  .refine(({ from, to }) => from <= to, { message: "must not be before `from`", path: ["to"] })
  .refine(({ from, to }) => Date.parse(to) - Date.parse(from) <= 366 * dayMs, {
    message: "at most 366 days from `from` (an omitted `to` is today)",
    path: ["to"],
  });

/** Overview (balance, spend today and this month, the last 30 days) and statistics by day and model. */
export function statisticsRoutes(router: Router, ledger: Ledger): void {
  router.get("/overview", async (_request, response) => {
    const accountId = sessionOf(response).accountId;
    const today = new Date();
    const first = dayOf(new Date(today.getTime() - 29 * dayMs));
    const monthStart = `${dayOf(today).slice(0, 8)}01`;
    const from = monthStart < first ? monthStart : first;
    const [balance, statistics] = await Promise.all([
      ledger.getBalance({ accountId }),
      ledger.getStatistics({ accountId, fromDay: from, toDay: dayOf(today) }),
    ]);
    const days = sumBy(statistics.rows, (row) => row.day, daysBetween(first, dayOf(today)));
    response.json({
      balanceMicros: balance.balanceMicros,
      spendTodayMicros: totals(statistics.rows.filter((row) => row.day === dayOf(today))).costMicros,
      spendMonthMicros: totals(statistics.rows.filter((row) => row.day >= monthStart)).costMicros,
      days: days.filter(({ name }) => name >= first).map(({ name, ...sums }) => ({ day: name, ...sums })),
    });
  });

  router.get("/statistics", async (request, response) => {
    const { from, to, ...query } = parseInput(statisticsQuery, request.query);
    const statistics = await ledger.getStatistics({
      accountId: sessionOf(response).accountId,
      fromDay: from,
      toDay: to,
      model: query.model,
    });
    response.json({
      byDay: sumBy(statistics.rows, (row) => row.day, daysBetween(from, to)).map(({ name, ...sums }) => ({
        day: name,
        ...sums,
      })),
      byModel: sumBy(statistics.rows, (row) => row.model).map(({ name, ...sums }) => ({ model: name, ...sums })),
      totals: totals(statistics.rows),
    });
  });
}
