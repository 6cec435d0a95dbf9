import { sqlMigrator } from "@gateway/platform/sql-migrations";

export type { MigrationResult } from "@gateway/platform/sql-migrations";

/** Prisma's migrations folder: one sub-folder per migration, each holding migration.sql. */
export const migrationsDirectory = new URL("../prisma/migrations/", import.meta.url);

// Any constant works as long as every ledger instance uses the same one; this spells "ledger".
const MIGRATION_LOCK_ID = 0x6c6564676572;

/**
 * Applies the ledger's pending migrations (recorded in `ledger._migrations`) under an
 * advisory lock; `pendingMigrations` names those not applied yet. See sql-migrations.ts.
 */
export const { migrate, pendingMigrations } = sqlMigrator({
  schema: "ledger",
  lockId: MIGRATION_LOCK_ID,
  directory: migrationsDirectory,
});
