import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

// Each workspace package is entered only through its front door: the entry points its
// package.json `exports` names. Anything else is the package's own business, free to move.

/** A workspace package as the rule sees it: its name and the subpaths its exports map names. */
export interface WorkspacePackage {
  name: string;
  /** The keys of its `exports` map ("." and "./store" and the like); none when it has no map. */
  entries: string[];
}

/** One import of a workspace package: the package and the entry point it asks for. */
export interface WorkspaceImport {
  packageName: string;
  /** "." for the package itself, "./sub/path" for a subpath. */
  entry: string;
}

const workspaceImport = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](@gateway\/[a-z0-9-]+)(\/[^"']+)?["']/g;

/** The workspace packages a TypeScript source imports, each with the entry point it names. */
export function workspaceImportsOf(source: string): WorkspaceImport[] {
  return [...source.matchAll(workspaceImport)].map(([, packageName, subpath]) => ({
    packageName: packageName!,
    entry: subpath ? `.${subpath}` : ".",
  }));
}

/** What is wrong with one package's exports map: a wildcard makes every internal public. */
export function wildcardEntries(pkg: WorkspacePackage): string[] {
  return pkg.entries.filter((entry) => entry.includes("*"));
}

/** Why an import goes past its package's front door, or undefined when it goes through it. */
export function pastFrontDoor(imported: WorkspaceImport, packages: Map<string, WorkspacePackage>): string | undefined {
  const pkg = packages.get(imported.packageName);
  // A name no workspace package has is the compiler's to refuse.
  if (!pkg || pkg.entries.includes(imported.entry)) return undefined;
  const asked = imported.entry === "." ? imported.packageName : `${imported.packageName}${imported.entry.slice(1)}`;
  return `${asked} is not an entry point of ${pkg.name} (it exports ${pkg.entries.join(", ") || "nothing"})`;
}

/** The workspace's packages, read from pnpm-workspace.yaml's folders and their package.json. */
export function workspacePackages(repoRoot: string): Map<string, WorkspacePackage> {
  const patterns = [...readFileSync(join(repoRoot, "pnpm-workspace.yaml"), "utf8").matchAll(/^\s*-\s*(\S+)\s*$/gm)].map(
    ([, pattern]) => pattern!,
  );
  const folders = patterns.flatMap((pattern) =>
    pattern.endsWith("/*")
      ? readdirSync(join(repoRoot, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(pattern.slice(0, -2), entry.name))
      : [pattern],
  );
  const packages = new Map<string, WorkspacePackage>();
  for (const folder of folders) {
    const manifest = join(repoRoot, folder, "package.json");
    if (!existsSync(manifest)) continue;
    const { name, exports } = JSON.parse(readFileSync(manifest, "utf8")) as { name: string; exports?: object };
    packages.set(name, { name, entries: exports ? Object.keys(exports) : [] });
  }
  return packages;
}

const skipped = new Set(["node_modules", "dist", "generated", ".tsbuild", "gen"]);

/** Every .ts and .tsx file under the given folders of the repository, outside build output. */
export function typeScriptSources(repoRoot: string, folders: string[]): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return skipped.has(entry.name) ? [] : walk(path);
      return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [relative(repoRoot, path)] : [];
    });
  return folders.flatMap((folder) => walk(join(repoRoot, folder)));
}
