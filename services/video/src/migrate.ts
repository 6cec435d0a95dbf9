import { sqlMigrator } from "@gateway/platform/sql-migrations";

export type { MigrationResult } from "@gateway/platform/sql-migrations";

/** Prisma's migrations folder: one sub-folder per migration, each holding migration.sql. */
export const migrationsDirectory = new URL("../prisma/migrations/", import.meta.url);

// Any constant works as long as every video instance uses the same one; this spells "video".
const MIGRATION_LOCK_ID = 0x766964656f;

/** Applies the video schema's pending migrations (recorded in `video._migrations`) under an advisory lock. */
export const { migrate, pendingMigrations } = sqlMigrator({
  schema: "video",
  lockId: MIGRATION_LOCK_ID,
  directory: migrationsDirectory,
});
