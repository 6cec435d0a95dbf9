import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./repo-paths.js";

const shippedCatalogue = () => readFileSync(join(repoRoot, "infra/catalogue/models.yaml"), "utf8");

/** Writes the shipped catalogue to `path` with more channels (YAML lines under `channels:`). */
export function writeCatalogueWithChannels(path: string, extraChannels: string): void {
  writeFileSync(path, shippedCatalogue().replace("channels:\n", `channels:\n${extraChannels}`));
}

export interface GroupLimitValues {
  requests_per_minute: number;
  tokens_per_minute: number;
  concurrent_requests: number;
}

/** Writes the shipped catalogue to `path` with other rate limits for some of its model groups. */
export function writeCatalogueWithLimits(path: string, limits: Record<string, GroupLimitValues>): void {
  let catalogue = shippedCatalogue();
  for (const [group, values] of Object.entries(limits)) {
    // The group's own `limits:` line: the first one after its name, before the next group.
    const line = new RegExp(`(\\n  ${group}:\\n(?: {4}.*\\n)*? {4}limits: )\\{[^}\\n]*\\}`);
    if (!line.test(catalogue)) throw new Error(`the shipped catalogue has no limits line for group ${group}`);
    const { requests_per_minute, tokens_per_minute, concurrent_requests } = values;
    catalogue = catalogue.replace(
      line,
      `$1{ requests_per_minute: ${requests_per_minute}, tokens_per_minute: ${tokens_per_minute}, concurrent_requests: ${concurrent_requests} }`,
    );
  }
  writeFileSync(path, catalogue);
}

/** The shipped catalogue with other limits, in a directory of its own (`CATALOGUE_PATH`); `remove` deletes it. */
export function temporaryCatalogueWithLimits(limits: Record<string, GroupLimitValues>): {
  path: string;
  remove(): void;
} {
  const directory = mkdtempSync(join(tmpdir(), "gw-limits-"));
  const path = join(directory, "models.yaml");
  writeCatalogueWithLimits(path, limits);
  return { path, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/**
 * The shipped catalogue with the retirement of `ids` lifted, in a directory of its own
 * (`CATALOGUE_PATH`); `remove` deletes it. For tests of per-image rules that only retired entries
 * carry (dall-e's url answers, styles, revised prompts and square edits), run on them as they were served.
 */
export function temporaryCatalogueServing(ids: readonly string[]): { path: string; remove(): void } {
  let catalogue = shippedCatalogue();
  for (const id of ids) {
    // The entry's own `retired:` line: the first one after its id, before the next entry.
    const line = new RegExp(`(\n  - id: ${id.replaceAll(".", "\\.")}\n(?: {4}.*\n)*?) {4}retired: .*\n`);
    if (!line.test(catalogue)) throw new Error(`the shipped catalogue does not retire ${id}`);
    catalogue = catalogue.replace(line, "$1");
  }
  const directory = mkdtempSync(join(tmpdir(), "gw-serving-"));
  const path = join(directory, "models.yaml");
  writeFileSync(path, catalogue);
  return { path, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/**
 * Limits count in one-minute windows aligned to the clock (Redis's, on this machine); a test
 * that counts to a limit calls this first, so no reset lands in the middle of its count.
 */
export async function awayFromLimitWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((done) => setTimeout(done, left + 100));
}
