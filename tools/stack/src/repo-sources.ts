import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./repo-paths.js";

/** The TypeScript files below a directory, leaving out dependencies, build output and generated code. */
export function typeScriptFiles(directory: string, keep: (name: string) => boolean = () => true): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      return ["node_modules", "dist", "generated"].includes(entry.name) ? [] : typeScriptFiles(path, keep);
    }
    return /\.tsx?$/.test(entry.name) && keep(entry.name) ? [path] : [];
  });
}

/** `folder` (src, test…) of every service, library and tool that has one. */
export function workspaceFolders(folders: string[], groups = ["services", "packages", "tools"]): string[] {
  return groups.flatMap((group) =>
    readdirSync(join(repoRoot, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => folders.map((folder) => join(repoRoot, group, entry.name, folder)))
      .filter((path) => existsSync(path)),
  );
}
