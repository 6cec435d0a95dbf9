import type { Logger } from "@gateway/shared";
import type { Database } from "../database.js";

export interface AdminDependencies {
  database: Database;
  /** Drops a revoked key from caches and tells the edges; see keys/announce-revocation.ts. */
  announceRevocation: (keyHash: string) => Promise<void>;
  /** Writes a committed balance where router checks reservations; see usage/settle-reservations.ts. */
  publishBalance: (accountId: string, balanceMicros: bigint) => Promise<void>;
  adminToken: string;
  logger: Logger;
}
