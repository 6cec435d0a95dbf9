// What other packages (the stack launcher, the migration Job) may import from the ledger.
export { type MigrationResult, migrate, pendingMigrations } from "./migrate.js";
