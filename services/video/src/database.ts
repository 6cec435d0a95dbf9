import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client.js";

export type Database = PrismaClient;
export type { VideoTask } from "./generated/prisma/client.js";

/** Prisma 7's generated client over the `pg` driver adapter (no native engine). */
export function connectDatabase(databaseUrl: string): Database {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
}
