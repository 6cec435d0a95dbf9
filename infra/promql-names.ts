import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

// What the dashboard and the alert rules may query: read from the services' sources, so
// neither can drift from the instruments they describe.

const repoRoot = join(import.meta.dirname, "..");

/** Every non-test TypeScript file under services/<service>/src and packages/<library>/src. */
function serviceSources(): string[] {
  return ["services", "packages"].flatMap((folder) =>
    readdirSync(join(repoRoot, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((service) =>
        readdirSync(join(repoRoot, folder, service.name, "src"), { recursive: true, encoding: "utf8" })
          .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.includes("generated"))
          .map((file) => readFileSync(join(repoRoot, folder, service.name, "src", file), "utf8")),
      ),
  );
}

/**
 * The metric names the services export, read from their instruments' names in the source
 * (every one is a literal), with the series a histogram adds in Prometheus.
 */
export function exportedNames(): { instruments: Set<string>; series: Set<string> } {
  const instruments = new Set<string>();
  const histograms = new Set<string>();
  for (const source of serviceSources()) {
    for (const [, name] of source.matchAll(/"((?:gateway|nodejs|process)_[a-z0-9_]+)"/g)) instruments.add(name!);
    for (const [, name] of source.matchAll(/createHistogram\(\s*"([a-z0-9_]+)"/g)) histograms.add(name!);
  }
  const series = new Set(instruments);
  for (const name of histograms) for (const suffix of ["_bucket", "_count", "_sum"]) series.add(`${name}${suffix}`);
  return { instruments, series };
}

// Label names, functions and keywords are never metric names; what is left once strings,
// label matchers, ranges and grouping clauses are removed are the series an expression reads.
const notMetrics = /^(by|without|on|ignoring|group_left|group_right|bool|and|or|unless|offset|le|inf|nan|e\d*)$/i;

export function metricNamesIn(expression: string): string[] {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, "");
  return [...stripped.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)]
    .filter(([, name, call]) => call === undefined && !notMetrics.test(name!))
    .map(([, name]) => name!);
}
