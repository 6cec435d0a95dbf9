import pg from "pg";
import type { Logger } from "./logger.js";

export type SqlPool = pg.Pool;

/**
 * A plain node-postgres pool for the paths that run for every event or request (ledger's
 * usage batches, video's submits and reads), where raw SQL with named (prepared) statements
 * costs a fraction of Prisma's per-query work.
 */
export function createSqlPool(databaseUrl: string, max: number, logger: Logger): SqlPool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max });
  // An idle connection that breaks (Postgres restarts) is dropped and replaced on next use;
  // unhandled, its error would end the process.
  pool.on("error", (error) => logger.warn({ err: error }, "an idle Postgres connection failed"));
  return pool;
}

/** Postgres' unique_violation: the row's key is taken. */
export const isUniqueViolation = (error: unknown) =>
  error instanceof Error && (error as Error & { code?: unknown }).code === "23505";
