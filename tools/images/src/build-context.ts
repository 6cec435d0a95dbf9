import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./service-images.js";

/**
 * A copy of the checkout's files (tracked ones and new ones git does not ignore) to build from.
 * Each `docker build` reads its context anew, so building from the checkout itself would run the
 * shared build stage again for the next image whenever a file changed in between; the copy also
 * leaves out whatever git ignores (outputs, local state) before .dockerignore is even applied.
 */
export function snapshotContext(): { directory: string; remove: () => void } {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) return { directory: repoRoot, remove: () => undefined };
  const directory = mkdtempSync(join(tmpdir(), "gateway-context-"));
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    // Listed but deleted in the working tree: a build from it would not have it either.
    if (existsSync(join(repoRoot, file))) cpSync(join(repoRoot, file), join(directory, file), { recursive: true });
  }
  return { directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
