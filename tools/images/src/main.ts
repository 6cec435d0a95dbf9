// pnpm images [--repository PREFIX] [--tag TAG] [--base auto|official|local|IMAGE]: builds every
// service image from the root Dockerfile when a Docker engine answers, then prints each image's
// size and what is in it (exit 1 when an image holds what it must not). Without an engine it says
// so and skips (exit 0). --base auto (the default) uses the pinned official Node image when it is
// present or can be pulled, else the local base (`pnpm images:base`).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBaseImage } from "./base-image.js";
import { snapshotContext } from "./build-context.js";
import { docker, dockerAsync, dockerOrThrow, engineMissing, imageExists } from "./docker-engine.js";
import { inspectImage } from "./image-contents.js";
import { officialBase, serviceImages } from "./service-images.js";

const { values } = parseArgs({
  options: {
    repository: { type: "string", default: "gateway" },
    tag: { type: "string", default: "dev" },
    base: { type: "string", default: "auto" },
  },
});

const missing = engineMissing();
if (missing) {
  console.log(`pnpm images: no Docker engine reachable (${missing}); skipped building the images.`);
  process.exit(0);
}

function chooseBase(choice: string): string {
  if (choice === "local") return ensureBaseImage();
  if (choice !== "auto" && choice !== "official") return choice;
  if (imageExists(officialBase) || docker(["pull", officialBase], { stdio: "ignore" }).status === 0) {
    return officialBase;
  }
  if (choice === "official") throw new Error(`${officialBase} cannot be pulled`);
  console.log(`pnpm images: ${officialBase} cannot be pulled; using the local base`);
  return ensureBaseImage();
}

/** Certificates added to this machine's trust (Debian's place for local ones), for a TLS-intercepting proxy. */
function extraCertificates(): string {
  const directory = "/usr/local/share/ca-certificates";
  try {
    return readdirSync(directory)
      .filter((name) => name.endsWith(".crt"))
      .map((name) => readFileSync(join(directory, name), "utf8").trim())
      .join("\n");
  } catch {
    return "";
  }
}

const base = chooseBase(values.base);
const context = snapshotContext();
const started = Date.now();
const failures: string[] = [];
const certificates = extraCertificates();
// The host's network: this kind of machine has no bridge network for build containers.
const buildArguments = (target: string, image: string) => [
  "build",
  "--network",
  "host",
  "--target",
  target,
  "--tag",
  image,
  "--build-arg",
  `BASE=${base}`,
  "--build-arg",
  `EXTRA_CA_CERTS=${certificates}`,
  context.directory,
];
try {
  const [first, ...rest] = serviceImages.map(({ target }) => ({
    target,
    image: `${values.repository}/${target}:${values.tag}`,
  }));
  if (first) {
    // The first builds the stages every image shares (install, compile, deploy), its output shown.
    console.log(`pnpm images: building ${first.image} on ${base}`);
    dockerOrThrow(buildArguments(first.target, first.image));
  }
  // The others only copy their deploy output onto the shared runtime stage: disk-bound, so at once.
  console.log(`pnpm images: building ${rest.map(({ image }) => image).join(", ")} at once`);
  const builds = await Promise.all(
    rest.map(async ({ target, image }) => ({ image, ...(await dockerAsync(buildArguments(target, image))) })),
  );
  const failed = builds.filter((build) => build.status !== 0);
  for (const build of failed) console.error(`pnpm images: building ${build.image} failed:\n${build.output}`);
  if (failed.length > 0) throw new Error(`docker build failed for ${failed.map((build) => build.image).join(", ")}`);
} finally {
  context.remove();
}
console.log(`pnpm images: built ${serviceImages.length} images in ${Math.round((Date.now() - started) / 1000)} s`);
for (const { target } of serviceImages) {
  const image = `${values.repository}/${target}:${values.tag}`;
  const contents = inspectImage(image);
  const size = `${(contents.sizeBytes / 1e6).toFixed(0)} MB`;
  const verdict =
    contents.problems.length === 0
      ? "production dependencies only, no compilers, no test files, no secrets"
      : contents.problems.join("; ");
  console.log(`${image}  ${size}  ${contents.productionPackages} packages  ${verdict}`);
  if (contents.problems.length > 0) failures.push(image);
}
if (failures.length > 0) {
  console.error(`pnpm images: ${failures.join(", ")} hold what an image must not (above)`);
  process.exit(1);
}
