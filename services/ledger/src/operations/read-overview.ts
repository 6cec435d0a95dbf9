import type { Database } from "../database.js";

export interface OverviewPeriod {
  /** UTC days, both inclusive. */
  from: Date;
  to: Date;
  top: number;
}

const DAY_MS = 86_400_000;
const dayText = (day: Date) => day.toISOString().slice(0, 10);

/**
 * The service at a glance over whole UTC days: paid top-ups (prepaid codes included) and
 * spend per day, the accounts and models that spent most, and per channel how many requests
 * ended in the vendor's or the stream's failure (a client's own cancel is not the channel's).
 * Spend comes from the running daily totals; only the channel rates read usage records.
 */
export async function readOverview(database: Database, { from, to, top }: OverviewPeriod) {
  const end = new Date(to.getTime() + DAY_MS);
  // Days as text, so the session's time zone never shifts them.
  const [first, last] = [dayText(from), dayText(to)];
  const [topUps, spend, accounts, models, channels] = await Promise.all([
    database.$queryRaw<{ day: Date; micros: bigint; count: bigint }[]>`
      SELECT date_trunc('day', finished_at AT TIME ZONE 'UTC')::date AS day,
             sum(amount_micros)::bigint AS micros, count(*) AS count
        FROM ledger.topup_orders
       WHERE state = 'paid' AND finished_at >= ${from} AND finished_at < ${end}
       GROUP BY 1`,
    database.$queryRaw<{ day: Date; micros: bigint; requests: bigint }[]>`
      SELECT day, sum(cost_micros)::bigint AS micros, sum(requests)::bigint AS requests
        FROM ledger.daily_usage
       WHERE day >= ${first}::date AND day <= ${last}::date
       GROUP BY day`,
    database.$queryRaw<{ account_id: string; name: string | null; micros: bigint; requests: bigint }[]>`
      SELECT usage.account_id::text, account.name, sum(usage.cost_micros)::bigint AS micros,
             sum(usage.requests)::bigint AS requests
        FROM ledger.daily_usage AS usage
        LEFT JOIN ledger.accounts AS account ON account.id = usage.account_id
       WHERE usage.day >= ${first}::date AND usage.day <= ${last}::date
       GROUP BY usage.account_id, account.name
       ORDER BY micros DESC, requests DESC
       LIMIT ${top}`,
    database.$queryRaw<{ model: string; micros: bigint; requests: bigint }[]>`
      SELECT model, sum(cost_micros)::bigint AS micros, sum(requests)::bigint AS requests
        FROM ledger.daily_usage
       WHERE day >= ${first}::date AND day <= ${last}::date
       GROUP BY model
       ORDER BY micros DESC, requests DESC
       LIMIT ${top}`,
    database.$queryRaw<{ channel: string; requests: bigint; errors: bigint }[]>`
      SELECT channel, count(*) AS requests,
             count(*) FILTER (WHERE outcome NOT IN ('ok', 'client_cancelled')) AS errors
        FROM ledger.usage_records
       WHERE created_at >= ${from} AND created_at < ${end}
       GROUP BY channel
       ORDER BY requests DESC
       LIMIT 100`,
  ]);
  const days = new Map<string, { topUpMicros: bigint; topUps: bigint; spendMicros: bigint; requests: bigint }>();
  for (let day = from.getTime(); day <= to.getTime(); day += DAY_MS) {
    days.set(dayText(new Date(day)), { topUpMicros: 0n, topUps: 0n, spendMicros: 0n, requests: 0n });
  }
  for (const row of topUps)
    Object.assign(days.get(dayText(row.day)) ?? {}, { topUpMicros: row.micros, topUps: row.count });
  for (const row of spend)
    Object.assign(days.get(dayText(row.day)) ?? {}, { spendMicros: row.micros, requests: row.requests });
  return {
    from: dayText(from),
    to: dayText(to),
    days: [...days].map(([day, totals]) => ({ day, ...totals })),
    accounts,
    models,
    channels,
  };
}
