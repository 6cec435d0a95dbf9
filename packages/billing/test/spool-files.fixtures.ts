import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { SpooledMessage } from "../src/usage-spool.js";

/** A fresh directory for one test's spool or journal files, removed after the test. */
export function spoolDirectories(prefix: string): () => string {
  const directories: string[] = [];
  afterEach(() => {
    for (const path of directories.splice(0)) rmSync(path, { recursive: true, force: true });
  });
  return () => {
    const path = mkdtempSync(join(tmpdir(), prefix));
    directories.push(path);
    return path;
  };
}

export const spooledMessage = (id: string): SpooledMessage => ({
  subject: "gw.usage.openai",
  msgID: id,
  data: "AAE=",
  headers: { a: "b" },
});
