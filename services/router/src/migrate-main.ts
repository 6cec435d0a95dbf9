// Applies the catalogue schema's migrations to DATABASE_URL and exits: the Kubernetes migration
// Job and `pnpm --filter @gateway/router migrate` run this; tests call migrate() directly.
import { migrate, pendingMigrations } from "@gateway/catalogue/store";
import { runMigrationCommand } from "@gateway/platform/sql-migrations";

await runMigrationCommand({ migrate, pendingMigrations });
