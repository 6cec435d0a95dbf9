import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Database = PrismaClient;

/**
 * Prisma 7 has no native query engine: the generated client compiles queries in WASM and
 * runs them through the `pg` driver adapter, so the connection pool is node-postgres'.
 */
export function connectDatabase(databaseUrl: string): Database {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
}
