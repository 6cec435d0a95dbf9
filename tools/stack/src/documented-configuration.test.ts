import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./repo-paths.js";
import { typeScriptFiles, workspaceFolders } from "./repo-sources.js";

// docs/configuration.md against the code: every variable it names is read somewhere, and every
// variable the code reads is named there (the simulator's own in its README), so neither drifts.

const envName = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

/** Variables that are no one's setting: the system's, and hand-offs from a tool or test to a child it starts. */
const notOurs = new Set([
  "PATH",
  // The bench's own hand-off to the CPU-profile preload it injects into each process it measures.
  "BENCH_CPU_PROFILE",
  // services/edge/test/tenant-beside-attack.ts: what its test passes to the attacking process.
  "BASE_URL",
  "KEY",
  "UNTIL",
  // tools/stack/src/no-process-left-behind.test.ts: where its stand-in services write their pids.
  "PIDS_FILE",
]);
const thisFile = "documented-configuration.test.ts";

/** The code and tests of every service, library and tool, and the console's browser suite. */
const sourceFiles = workspaceFolders(["src", "test", "web/e2e"]).flatMap((folder) =>
  typeScriptFiles(folder, (name) => name !== thisFile),
);

const readsOfEnvironment = [
  /process\.env(?:\?\.|\.)([A-Z][A-Z0-9_]+)/g,
  /process\.env\[["']([A-Z][A-Z0-9_]+)["']\]/g,
  /\benv(?:\?\.|\.)([A-Z][A-Z0-9_]+)/g,
  /\benv\[["']([A-Z][A-Z0-9_]+)["']\]/g,
  /\w+FromEnv\(["']([A-Z][A-Z0-9_]+)["']/g,
];
// The keys of the zod schemas loadConfig checks the environment against.
const schemaKey = /^\s+([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+):/gm;

function variablesTheCodeReads(): Map<string, string> {
  const found = new Map<string, string>();
  const note = (name: string, where: string) => {
    if (envName.test(name) && !notOurs.has(name) && !found.has(name)) found.set(name, where);
  };
  for (const file of sourceFiles) {
    const text = readFileSync(file, "utf8");
    const where = file.replace(repoRoot, "");
    for (const pattern of readsOfEnvironment) for (const [, name] of text.matchAll(pattern)) note(name!, where);
    if (text.includes('from "zod"')) for (const [, name] of text.matchAll(schemaKey)) note(name!, where);
  }
  // The images' health check reads its port in the Dockerfile itself.
  for (const [, name] of readFileSync(`${repoRoot}Dockerfile`, "utf8").matchAll(readsOfEnvironment[0]!)) {
    note(name!, "Dockerfile");
  }
  // Vendor keys and base URLs: the catalogue names the variable each vendor's channels read.
  const catalogue = readFileSync(`${repoRoot}infra/catalogue/models.yaml`, "utf8");
  for (const [, name] of catalogue.matchAll(/^\s+(?:api_key_env|base_url_env): ([A-Z0-9_]+)$/gm)) {
    note(name!, "infra/catalogue/models.yaml");
  }
  return found;
}

/** The backticked names in the first column of a markdown table; `PREFIX_*` stands for a family. */
function documentedVariables(markdown: string): string[] {
  return markdown
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .flatMap((line) => [...line.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]*\*?)`/g)].map(([, name]) => name!));
}

const documented = [
  ...documentedVariables(readFileSync(`${repoRoot}docs/configuration.md`, "utf8")),
  ...documentedVariables(readFileSync(`${repoRoot}services/simulator/README.md`, "utf8")),
];
const families = documented.filter((name) => name.endsWith("_*")).map((name) => name.slice(0, -1));
const isDocumented = (name: string) => documented.includes(name) || families.some((prefix) => name.startsWith(prefix));
const read = variablesTheCodeReads();

describe("docs/configuration.md", () => {
  it("finds the variables the code reads, so an empty scan cannot pass", () => {
    for (const name of [
      "GATEWAY_PORT",
      "ROUTER_MAX_ATTEMPTS",
      "CONSOLE_PUBLIC_URL",
      "OPENAI_API_KEY",
      "HEALTHZ_PORT",
    ]) {
      expect(read.has(name), name).toBe(true);
    }
  });

  it("names every variable the code reads", () => {
    const missing = [...read].filter(([name]) => !isDocumented(name)).map(([name, where]) => `${name} (${where})`);
    expect(missing).toEqual([]);
  });

  it("names no variable the code does not read", () => {
    const readNames = [...read.keys()];
    const stale = documented.filter((name) =>
      name.endsWith("_*") ? !readNames.some((read) => read.startsWith(name.slice(0, -1))) : !read.has(name),
    );
    expect(stale).toEqual([]);
  });
});
