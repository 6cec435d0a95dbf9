// Applies the video schema's migrations to DATABASE_URL and exits: the Kubernetes migration
// Job and `pnpm --filter @gateway/video migrate` run this; tests call migrate() directly.
import { runMigrationCommand } from "@gateway/platform/sql-migrations";
import { migrate, pendingMigrations } from "./migrate.js";

await runMigrationCommand({ migrate, pendingMigrations });
