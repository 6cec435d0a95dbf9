import { fileURLToPath } from "node:url";

/** The repository root, found from this file's place in tools/stack/dist. */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export const serviceEntry = {
  simulator: `${repoRoot}services/simulator/dist/main.js`,
  ledger: `${repoRoot}services/ledger/dist/main.js`,
  ledgerMigrate: `${repoRoot}services/ledger/dist/migrate-main.js`,
  router: `${repoRoot}services/router/dist/main.js`,
  routerMigrate: `${repoRoot}services/router/dist/migrate-main.js`,
  edge: `${repoRoot}services/edge/dist/main.js`,
  console: `${repoRoot}services/console/dist/main.js`,
  devOidcProvider: `${repoRoot}tools/stack/dist/dev-oidc-provider-main.js`,
  video: `${repoRoot}services/video/dist/main.js`,
  videoMigrate: `${repoRoot}services/video/dist/migrate-main.js`,
  cli: `${repoRoot}services/ledger/dist/cli/main.js`,
};
