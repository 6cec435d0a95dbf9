import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./repo-paths.js";

/** Writes the shipped catalogue to `path` with more channels (YAML lines under `channels:`). */
export function writeCatalogueWithChannels(path: string, extraChannels: string): void {
  const shipped = readFileSync(join(repoRoot, "infra/catalogue/models.yaml"), "utf8");
  writeFileSync(path, shipped.replace("channels:\n", `channels:\n${extraChannels}`));
}
