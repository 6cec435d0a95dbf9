import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { repoRoot } from "./repo-paths.js";
import { typeScriptFiles, workspaceFolders } from "./repo-sources.js";

// docs/errors.md names only codes and types the services can answer: each one in its code column
// is a string literal somewhere in the services' or libraries' code.

const code = workspaceFolders(["src"], ["services", "packages"])
  .flatMap((folder) => typeScriptFiles(folder, (name) => !name.endsWith(".test.ts")))
  .map((file) => readFileSync(file, "utf8"))
  .join("\n");

it("docs/errors.md lists only codes the code answers with", () => {
  const rows = readFileSync(`${repoRoot}docs/errors.md`, "utf8")
    .split("\n")
    .filter((line) => /^\| \d{3} \|/.test(line));
  const named = rows.flatMap((row) => [...row.split("|")[2]!.matchAll(/`([a-z_]+)`/g)].map(([, name]) => name!));
  expect(named.length).toBeGreaterThan(10);
  expect(named.filter((name) => name !== "param" && !code.includes(`"${name}"`))).toEqual([]);
});
