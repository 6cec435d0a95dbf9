import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./service-images.js";

const runImages = (path: string) =>
  spawnSync(process.execPath, [`${repoRoot}tools/images/dist/main.js`], {
    env: { ...process.env, PATH: path },
    encoding: "utf8",
  });

describe("pnpm images without a Docker engine", () => {
  const binDirectory = mkdtempSync(join(tmpdir(), "images-test-"));
  afterAll(() => rmSync(binDirectory, { recursive: true, force: true }));

  it("says so and exits 0 when there is no docker client", () => {
    const run = runImages(binDirectory);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("no Docker engine reachable (no docker client on PATH); skipped");
  });

  it("says so and exits 0 when the client finds no daemon", () => {
    // A client whose `docker info` fails, as the real one does where no daemon runs.
    writeFileSync(join(binDirectory, "docker"), "#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n");
    chmodSync(join(binDirectory, "docker"), 0o755);
    const run = runImages(binDirectory);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("no Docker engine reachable (`docker info` failed); skipped");
  });
});
