import { createTemporaryDatabase, type TemporaryDatabase } from "@gateway/stack";
import { connectDatabase, type Database } from "../src/database.js";
import { migrate } from "../src/migrate.js";

export interface MigratedDatabase {
  database: TemporaryDatabase;
  prisma: Database;
  /** Disconnects and drops the database. */
  close(): Promise<void>;
}

/** A fresh database with every migration applied and a client on it, for tests that need no running ledger. */
export async function openMigratedDatabase(): Promise<MigratedDatabase> {
  const database = await createTemporaryDatabase();
  await migrate(database.url);
  const prisma = connectDatabase(database.url);
  return {
    database,
    prisma,
    async close() {
      await prisma.$disconnect();
      await database.drop();
    },
  };
}
