// pnpm images [--repository PREFIX] [--tag TAG]: builds every service image from the root
// Dockerfile when a Docker engine answers; without one it says so and skips (exit 0).
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { dockerfilePath, repoRoot, serviceImages } from "./service-images.js";

const { values } = parseArgs({
  options: {
    repository: { type: "string", default: "gateway" },
    tag: { type: "string", default: "dev" },
  },
});

const engine = spawnSync("docker", ["info"], { stdio: "ignore" });
if (engine.status !== 0) {
  const reason = engine.error ? "no docker client on PATH" : "`docker info` failed";
  console.log(`pnpm images: no Docker engine reachable (${reason}); skipped building the images.`);
  process.exit(0);
}

for (const { target } of serviceImages) {
  const image = `${values.repository}/${target}:${values.tag}`;
  console.log(`pnpm images: building ${image}`);
  const build = spawnSync("docker", ["build", "--file", dockerfilePath, "--target", target, "--tag", image, repoRoot], {
    stdio: "inherit",
  });
  if (build.status !== 0) {
    console.error(`pnpm images: ${image} failed to build`);
    process.exit(build.status ?? 1);
  }
}
