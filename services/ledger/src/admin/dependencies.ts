import type { Logger } from "@gateway/platform";
import type { ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import type { CommittedBalance } from "../accounts/committed-copies.js";
import type { Database } from "../database.js";

export interface AdminDependencies {
  database: Database;
  /** Drops a revoked key from caches and tells the edges; see keys/announce-revocation.ts. */
  announceRevocation: (keyHash: string) => Promise<void>;
  /** Drops keys' cached ResolveKey answers after a change to what they carry; see keys/key-cache.ts. */
  forgetCachedKeys: (keyHashes: string[]) => Promise<void>;
  /** Writes a committed balance where router checks reservations; see usage/settle-reservations.ts. */
  publishBalance: (accountId: string, balance: CommittedBalance) => Promise<void>;
  /** ResolveKey; the account API signs callers in with their API keys through it. */
  resolveKey: (keyHash: string) => Promise<ResolveKeyResponse>;
  adminToken: string;
  logger: Logger;
}
