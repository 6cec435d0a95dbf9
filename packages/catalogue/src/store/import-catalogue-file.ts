import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { applyEdit } from "./catalogue-edits.js";
import { CatalogueRefused, type CatalogueStore, type ChangeResult } from "./catalogue-store.js";

/**
 * Imports the catalogue file (the ConfigMap a GitOps operator edits) into the store unless the
 * store already holds this very file: at start, on a change of the file, and on SIGHUP.
 * Undefined when the file was imported already.
 */
export async function importCatalogueFile(store: CatalogueStore, path: string): Promise<ChangeResult | undefined> {
  const text = readFileSync(path, "utf8");
  const fileSha256 = createHash("sha256").update(text).digest("hex");
  const stored = await store.load();
  if (stored?.fileSha256 === fileSha256) return undefined;
  let catalogue: unknown;
  try {
    catalogue = parse(text);
  } catch (error) {
    throw new CatalogueRefused([`${path}: ${error instanceof Error ? error.message : String(error)}`]);
  }
  return store.change({
    actor: `file:${path}`,
    action: "catalogue.import",
    apply: (current) => applyEdit({ action: "catalogue.import", catalogue }, current),
    fileSha256,
  });
}
