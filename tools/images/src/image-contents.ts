import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { docker, dockerEnvironment } from "./docker-engine.js";
import { repoRoot } from "./service-images.js";

/** What one image holds, from the file list of a container made from it (never started). */
export interface ImageContents {
  sizeBytes: number;
  productionPackages: number;
  problems: string[];
}

const workspaceDirectories = ["proto", "packages", "services", "services/console", "tools"];

function workspaceManifests(): Array<{ dependencies?: object; devDependencies?: object }> {
  const manifests = [];
  for (const directory of [".", ...workspaceDirectories.flatMap((parent) => childDirectories(parent))]) {
    try {
      manifests.push(JSON.parse(readFileSync(join(repoRoot, directory, "package.json"), "utf8")));
    } catch {
      // A folder without a package is no workspace member.
    }
  }
  return manifests;
}

function childDirectories(parent: string): string[] {
  if (parent === "proto") return ["proto"];
  return readdirSync(join(repoRoot, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${parent}/${entry.name}`);
}

/** Packages the workspace only develops with: no member needs them at run time. */
export function developmentOnlyPackages(): Set<string> {
  const manifests = workspaceManifests();
  const runtime = new Set(manifests.flatMap((manifest) => Object.keys(manifest.dependencies ?? {})));
  return new Set(
    manifests.flatMap((manifest) => Object.keys(manifest.devDependencies ?? {})).filter((name) => !runtime.has(name)),
  );
}

/** `@scope+name@1.2.3_peer@4` (a folder of pnpm's virtual store) to `@scope/name`. */
function storePackageName(folder: string): string {
  const scoped = folder.startsWith("@");
  const name = folder.slice(0, folder.indexOf("@", scoped ? 1 : 0));
  return scoped ? name.replace("+", "/") : name;
}

const compiler = /^usr\/(local\/)?bin\/(gcc|g\+\+|cc|c\+\+|clang|clang\+\+|make|ld|as|tsc|esbuild)(-[\d.]+)?$/;
const testFile = /(\.test\.[cm]?[jt]s|\.spec\.[cm]?[jt]s)$|^app\/(test|e2e)\//;
const secretFile = /(^|\/)(\.env(\.[\w-]+)?|\.npmrc|\.netrc|id_rsa|id_ed25519|[^/]+\.(pem|key|p12|pfx))$/;
const secretVariable = /^[A-Z0-9_]*(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)[A-Z0-9_]*=/;

/** Lists, sizes and judges one built image: production dependencies only, no compilers, no test files, no secrets. */
export function inspectImage(image: string): ImageContents {
  const size = docker(["image", "inspect", "--format", "{{.Size}}", image]);
  const environment = docker(["image", "inspect", "--format", "{{json .Config.Env}}", image]);
  const created = docker(["create", image]);
  if (size.status !== 0 || created.status !== 0) throw new Error(`cannot inspect ${image}: ${created.stderr}`);
  const container = created.stdout.trim();
  let paths: string[];
  try {
    paths = containerPaths(container);
  } finally {
    docker(["rm", container], { stdio: "ignore" });
  }

  const environmentVariables = JSON.parse(environment.stdout || "[]") as string[];
  const { problems, productionPackages } = contentProblems(paths, environmentVariables);
  return { sizeBytes: Number(size.stdout.trim()), productionPackages, problems };
}

/** What is wrong with an image holding these paths (no leading slash) and this environment. */
export function contentProblems(
  paths: string[],
  environment: string[],
  developmentOnly = developmentOnlyPackages(),
): { problems: string[]; productionPackages: number } {
  const problems: string[] = [];
  const storeFolders = new Set(
    paths
      .map((path) => /^app\/node_modules\/\.pnpm\/([^/]+)$/.exec(path)?.[1])
      .filter((folder): folder is string => folder !== undefined && folder !== "node_modules" && folder.includes("@")),
  );
  const packages = new Set([...storeFolders].map(storePackageName));
  // Type declarations come along with some runtime packages (protobufjs depends on @types/node): inert text.
  for (const name of packages) {
    if (developmentOnly.has(name) && !name.startsWith("@types/")) problems.push(`development dependency ${name}`);
  }
  for (const path of paths) {
    if (compiler.test(path)) problems.push(`compiler or build tool /${path}`);
    if (path.startsWith("app/") && !path.startsWith("app/node_modules/") && testFile.test(path)) {
      problems.push(`test file /${path}`);
    }
    const ownFile = !path.includes("/node_modules/") || /\/(\.env(\.[\w-]+)?|\.npmrc)$/.test(path);
    if (ownFile && secretFile.test(path) && !path.startsWith("usr/") && !path.startsWith("etc/")) {
      problems.push(`secret-like file /${path}`);
    }
  }
  for (const variable of environment) {
    if (secretVariable.test(variable)) problems.push(`secret-like variable ${variable.split("=")[0]} in the image`);
  }
  return { problems, productionPackages: packages.size };
}

/** The paths in a container's filesystem, streamed through tar rather than held in memory. */
function containerPaths(container: string): string[] {
  const list = spawnSync("sh", ["-c", 'docker export "$1" | tar -t', "sh", container], {
    encoding: "utf8",
    env: dockerEnvironment(),
    maxBuffer: 256 * 1024 * 1024,
  });
  if (list.status !== 0) throw new Error(`listing ${container} failed: ${list.stderr}`);
  return list.stdout
    .split("\n")
    .filter(Boolean)
    .map((path) => path.replace(/^\.?\//, "").replace(/\/$/, ""));
}
