import type { LoadReport } from "./steady-load.js";
import { balanceMicrosOf, eventually, queryRows } from "./test-resources.js";

/** How the ledger's records compare with what the clients were served. */
export interface BillingCheck {
  // Served requests with no usage record.
  missing: string[];
  // Request ids with more than one record.
  doubled: string[];
  // Records of requests the clients never got a request id for (their connection broke first).
  unattributed: number;
  // Requests charged although their client was answered with an error (and so sent them again).
  billedErrors: string[];
  // Accounts whose balance moved by something other than the sum of their records.
  balanceMismatches: string[];
  records: number;
}

interface RecordRow {
  request_id: string;
  account_id: string;
  cost_micros: string;
}

/** An account's usage records (request id and charge), once there are at least `atLeast`. */
export function accountUsageRecords(
  databaseUrl: string,
  accountId: string,
  atLeast = 0,
  timeoutMs?: number,
): Promise<Pick<RecordRow, "request_id" | "cost_micros">[]> {
  return eventually(async () => {
    const rows = await queryRows<RecordRow>(
      databaseUrl,
      "SELECT request_id, account_id, cost_micros FROM ledger.usage_records WHERE account_id = $1",
      [accountId],
    );
    return rows.length >= atLeast ? rows : undefined;
  }, timeoutMs);
}

/**
 * An account's bill once it has `served` records: their request ids (sorted), their sum, the
 * balance after, and their mean charge plus one micro-yuan (one request's worst case, near enough).
 */
export async function accountBill(databaseUrl: string, accountId: string, served: number) {
  const records = await accountUsageRecords(databaseUrl, accountId, served);
  const billed = records.reduce((sum, row) => sum + BigInt(row.cost_micros), 0n);
  return {
    requestIds: records.map((row) => row.request_id).sort(),
    billed,
    balance: await balanceMicrosOf(databaseUrl, accountId),
    worstCase: billed / BigInt(records.length) + 1n,
  };
}

/**
 * Waits until the ledger holds a record for every served request and stops receiving new
 * ones, then checks the exact-billing invariant: one record per served request, none twice,
 * and each account's balance down by exactly the sum of its records from `creditMicros`.
 */
export async function checkExactBilling(
  databaseUrl: string,
  report: LoadReport,
  creditMicros: bigint,
  timeoutMs = 60_000,
): Promise<BillingCheck> {
  const accounts = [...report.served.keys()];
  const served = new Set([...report.served.values()].flat());
  const readRecords = () =>
    queryRows<RecordRow>(
      databaseUrl,
      "SELECT request_id, account_id, cost_micros FROM ledger.usage_records WHERE account_id = ANY($1)",
      [accounts],
    );
  let previous = -1;
  // Settled: every served request recorded, and nothing new landed for a while (interrupted ones may still come).
  const records = await eventually(
    async () => {
      const rows = await readRecords();
      const recorded = new Set(rows.map((row) => row.request_id));
      const complete = [...served].every((id) => recorded.has(id)) && rows.length === previous;
      previous = rows.length;
      return complete ? rows : undefined;
    },
    timeoutMs,
    2_000,
  ).catch(readRecords);
  const counts = new Map<string, number>();
  for (const row of records) counts.set(row.request_id, (counts.get(row.request_id) ?? 0) + 1);
  const seen = new Set(report.attempts.map((attempt) => attempt.requestId).filter((id) => id !== null));
  const answeredWithError = new Set(
    report.attempts
      .filter((attempt) => attempt.status !== 200 && attempt.requestId !== null)
      .map((attempt) => attempt.requestId),
  );
  const balances = await queryRows<{ id: string; balance_micros: string }>(
    databaseUrl,
    "SELECT id, balance_micros FROM ledger.accounts WHERE id = ANY($1)",
    [accounts],
  );
  const balanceMismatches = balances
    .filter((account) => {
      const billed = records
        .filter((row) => row.account_id === account.id)
        .reduce((sum, row) => sum + BigInt(row.cost_micros), 0n);
      return creditMicros - BigInt(account.balance_micros) !== billed;
    })
    .map((account) => account.id);
  return {
    missing: [...served].filter((id) => !counts.has(id)),
    doubled: [...counts].filter(([, count]) => count > 1).map(([id]) => id),
    unattributed: [...counts.keys()].filter((id) => !seen.has(id)).length,
    billedErrors: records
      .filter((row) => answeredWithError.has(row.request_id) && BigInt(row.cost_micros) > 0n)
      .map((row) => row.request_id),
    balanceMismatches,
    records: records.length,
  };
}
