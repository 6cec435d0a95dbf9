import { eventually, queryRows, type SimulatedRequest, simulatorRequests } from "@gateway/stack";

// Token counting is free and never billed: only the requests that generate are turns.
const countingPath = /count_?tokens/i;

/** The generating requests the vendor simulator got whose body carries `marker`: one per turn of the run. */
export async function vendorTurnsOf(simulatorUrl: string, marker: string): Promise<SimulatedRequest[]> {
  const requests = await simulatorRequests(simulatorUrl);
  return requests.filter(
    (request) => !countingPath.test(request.path) && JSON.stringify(request.body).includes(marker),
  );
}

/** What ledger holds about an account: its usage records, the request ids of its request logs, its balance. */
export interface AccountLedger {
  usageRecords: { request_id: string; cost_micros: string }[];
  loggedRequestIds: string[];
  balanceMicros: bigint;
}

// One statement, so one snapshot: read apart, a usage record committed between the reads could
// be counted without its debit of the balance.
const ledgerQuery = `
  SELECT
    (SELECT balance_micros::text FROM ledger.accounts WHERE id = $1) AS balance_micros,
    (SELECT coalesce(json_agg(json_build_object('request_id', request_id, 'cost_micros', cost_micros::text)), '[]')
       FROM ledger.usage_records WHERE account_id = $1) AS usage_records,
    (SELECT coalesce(json_agg(request_id), '[]') FROM ledger.request_logs WHERE account_id = $1) AS logged`;

async function readLedger(databaseUrl: string, accountId: string): Promise<AccountLedger> {
  const [row] = await queryRows<{
    balance_micros: string;
    usage_records: AccountLedger["usageRecords"];
    logged: string[];
  }>(databaseUrl, ledgerQuery, [accountId]);
  return {
    usageRecords: row!.usage_records,
    loggedRequestIds: row!.logged,
    balanceMicros: BigInt(row!.balance_micros),
  };
}

/**
 * The account's ledger once it holds `turns` usage records and as many request logs (both land
 * asynchronously, over the usage stream); after the wait, whatever it holds, for the test to judge.
 */
export async function accountLedgerAfter(
  databaseUrl: string,
  accountId: string,
  turns: number,
): Promise<AccountLedger> {
  const settled = (ledger: AccountLedger) =>
    ledger.usageRecords.length >= turns && ledger.loggedRequestIds.length >= turns ? ledger : undefined;
  return eventually(async () => settled(await readLedger(databaseUrl, accountId)), 20_000, 250).catch(() =>
    readLedger(databaseUrl, accountId),
  );
}
