import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@gateway/stack";

/**
 * The shipped catalogue with the groups' rate limits removed (the bench measures capacity, not
 * limits), or with `checked`, kept but out of reach: every request runs the limit check, none is refused.
 */
export function benchCatalogue(limits: "removed" | "checked"): string {
  const shipped = readFileSync(`${repoRoot}infra/catalogue/models.yaml`, "utf8");
  const path = join(mkdtempSync(join(tmpdir(), "gw-bench-")), "models.yaml");
  const unreachable =
    "limits: { requests_per_minute: 1000000000, tokens_per_minute: 1000000000000, concurrent_requests: 100000 }";
  writeFileSync(
    path,
    limits === "removed" ? shipped.replace(/^\s+limits: .*\n/gm, "") : shipped.replace(/limits: .*$/gm, unreachable),
  );
  return path;
}
