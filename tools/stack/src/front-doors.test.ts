import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  pastFrontDoor,
  typeScriptSources,
  type WorkspacePackage,
  wildcardEntries,
  workspaceImportsOf,
  workspacePackages,
} from "./front-doors.js";
import { repoRoot } from "./repo-paths.js";

describe("package front doors", () => {
  const packages = workspacePackages(repoRoot);

  it("no workspace package makes its internals public with a wildcard export", () => {
    const wildcards = [...packages.values()].flatMap((pkg) =>
      wildcardEntries(pkg).map((entry) => `${pkg.name}: ${entry}`),
    );
    expect(wildcards).toEqual([]);
  });

  it("no source imports a workspace package past the entry points its exports map names", () => {
    const problems = typeScriptSources(repoRoot, ["services", "packages", "tools", "infra"]).flatMap((file) =>
      workspaceImportsOf(readFileSync(join(repoRoot, file), "utf8")).flatMap((imported) => {
        const problem = pastFrontDoor(imported, packages);
        return problem ? [`${file}: ${problem}`] : [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it("finds the workspace's libraries and services", () => {
    expect([...packages.keys()]).toEqual(
      expect.arrayContaining(["@gateway/platform", "@gateway/billing", "@gateway/edge"]),
    );
  });
});

describe("the front-door rule", () => {
  const library: WorkspacePackage = { name: "@gateway/library", entries: [".", "./testing"] };
  const packages = new Map([[library.name, library]]);
  const problemsIn = (source: string) =>
    workspaceImportsOf(source).flatMap((imported) => pastFrontDoor(imported, packages) ?? []);

  it("refuses an import of a module the exports map does not name", () => {
    expect(problemsIn('import { inner } from "@gateway/library/internal/inner";')).toEqual([
      "@gateway/library/internal/inner is not an entry point of @gateway/library (it exports ., ./testing)",
    ]);
  });

  it("refuses deep imports in re-exports, type imports and dynamic imports alike", () => {
    const source = [
      'export { a } from "@gateway/library/a";',
      'import type { B } from "@gateway/library/b";',
      'const c = await import("@gateway/library/c");',
    ].join("\n");
    expect(problemsIn(source)).toHaveLength(3);
  });

  it("accepts the package itself and the subpaths it names", () => {
    expect(problemsIn('import { a } from "@gateway/library";\nimport { b } from "@gateway/library/testing";')).toEqual(
      [],
    );
  });

  it("refuses a package without an exports map entered by a subpath", () => {
    const bare = new Map([["@gateway/bare", { name: "@gateway/bare", entries: [] }]]);
    expect(pastFrontDoor({ packageName: "@gateway/bare", entry: "./src/main" }, bare)).toMatch(/exports nothing/);
  });

  it("names a wildcard entry as a problem", () => {
    expect(wildcardEntries({ name: "@gateway/open", entries: [".", "./*"] })).toEqual(["./*"]);
  });
});
