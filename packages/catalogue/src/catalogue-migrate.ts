import { sqlMigrator } from "@gateway/platform/sql-migrations";

export type { MigrationResult } from "@gateway/platform/sql-migrations";

export const migrationsDirectory = new URL("../migrations/", import.meta.url);

// Any constant works as long as every router uses the same one; this spells "catlg".
const MIGRATION_LOCK_ID = 0x6361746c67;

/** Applies the catalogue schema's pending migrations (recorded in `catalogue._migrations`). Router owns them. */
export const { migrate, pendingMigrations } = sqlMigrator({
  schema: "catalogue",
  lockId: MIGRATION_LOCK_ID,
  directory: migrationsDirectory,
});
