import { StoredResponse, type StoredResponseKey } from "@gateway/proto/ledger/v1/ledger";
import type { Database } from "../database.js";
import { type BatchOptions, deleteInBatches, type PurgePass } from "../retention/periodic-purge.js";
import { ConcurrencyLimit } from "./concurrency-limit.js";

// Response ids are edge's `resp_` plus 48 hex digits; anything far longer, or not text
// Postgres can hold, names no stored response.
const maxResponseIdLength = 256;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The key as a row key, or undefined when it cannot name a row (so the answer is "none"). */
function rowKey(key: StoredResponseKey | undefined) {
  if (!key || !uuidPattern.test(key.accountId)) return undefined;
  const { responseId } = key;
  if (responseId.length === 0 || responseId.length > maxResponseIdLength || responseId.includes("\0")) return undefined;
  return { accountId: key.accountId, responseId };
}

// Each load holds a conversation of up to a few MB several times over (row, decoded, encoded
// again for the answer), and a 100-byte request makes edge ask for one: loads beyond this
// many at once wait their turn rather than add up in ledger's heap.
const LOADS_AT_ONCE = 4;

/** Stored Responses API responses in Postgres, each kept `retentionSeconds` and scoped to its account. */
export class StoredResponses {
  private readonly loads = new ConcurrencyLimit(LOADS_AT_ONCE);

  constructor(
    private readonly database: Database,
    private readonly retentionSeconds: number,
  ) {}

  /** Keeps the response; false when the key cannot name one (no row is written then). */
  async store(key: StoredResponseKey | undefined, stored: StoredResponse): Promise<boolean> {
    const row = rowKey(key);
    if (!row) return false;
    const body = StoredResponse.encode(stored).finish();
    const expiresAt = new Date(Date.now() + this.retentionSeconds * 1000);
    const data = { body, storedBytes: body.length, expiresAt };
    await this.database.storedResponse.upsert({
      where: { accountId_responseId: row },
      create: { ...row, ...data },
      update: data,
    });
    return true;
  }

  async load(key: StoredResponseKey | undefined): Promise<StoredResponse | undefined> {
    const row = rowKey(key);
    if (!row) return undefined;
    return this.loads.run(async () => {
      const found = await this.database.storedResponse.findFirst({
        where: { ...row, expiresAt: { gt: new Date() } },
        select: { body: true },
      });
      return found ? StoredResponse.decode(found.body) : undefined;
    });
  }

  /** Whether there was such a response (unexpired) to remove. */
  async remove(key: StoredResponseKey | undefined): Promise<boolean> {
    const row = rowKey(key);
    if (!row) return false;
    const { count } = await this.database.storedResponse.deleteMany({
      where: { ...row, expiresAt: { gt: new Date() } },
    });
    return count > 0;
  }
}

/** Deletes responses past their expiry in batches; rows another replica is deleting are skipped. */
export const deleteExpiredResponses = (database: Database, options: BatchOptions = {}): Promise<number> =>
  deleteInBatches(
    (batchRows) => database.$executeRaw`
      DELETE FROM ledger.responses WHERE (account_id, response_id) IN (
        SELECT account_id, response_id FROM ledger.responses WHERE expires_at < now()
        LIMIT ${batchRows} FOR UPDATE SKIP LOCKED)`,
    options,
  );

export const expiredResponsesPurge = (database: Database): PurgePass => ({
  what: "stored responses",
  run: (stopping) => deleteExpiredResponses(database, { stopping }),
});
