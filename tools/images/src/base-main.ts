// pnpm images:base: builds the local stand-in for the official Node base (see base-image.ts) when
// it is not built yet, and prints its tag. Needs root (mmdebstrap), a Docker engine and npm.
import { ensureBaseImage } from "./base-image.js";
import { engineMissing } from "./docker-engine.js";

const missing = engineMissing();
if (missing) {
  console.error(`pnpm images:base: no Docker engine reachable (${missing})`);
  process.exit(1);
}
ensureBaseImage();
