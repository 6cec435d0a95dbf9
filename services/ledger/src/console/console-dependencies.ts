import type { CommittedBalance } from "../accounts/committed-copies.js";
import type { Database } from "../database.js";

/** What the console's and admin's calls need besides their requests. */
export interface ConsoleDependencies {
  database: Database;
  /** Drops a revoked key from caches and tells the edges (keys/announce-revocation.ts). */
  announceRevocation: (keyHash: string) => Promise<void>;
  /** Writes a committed balance where router checks reservations (usage/settle-reservations.ts). */
  publishBalance: (accountId: string, balance: CommittedBalance) => Promise<void>;
  /** Drops keys from ledger's Redis key cache, so a changed log capture reaches their next lookups. */
  forgetCachedKeys: (keyHashes: string[]) => Promise<void>;
  /** What one account may hold at once: keys not revoked, top-up orders open for payment. */
  accountCaps: AccountCaps;
}

export interface AccountCaps {
  keys: number;
  openTopUps: number;
}
