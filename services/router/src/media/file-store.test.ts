import { mkdtemp, readdir, readFile, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, generatedFileIdPattern } from "@gateway/platform";
import { afterEach, describe, expect, it } from "vitest";
import { FileStore } from "./file-store.js";

const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function store(keepMs = 60_000) {
  const directory = join(await mkdtemp(join(tmpdir(), "files-")), "nested");
  directories.push(directory);
  return { directory, files: new FileStore(directory, keepMs, createLogger("test")) };
}

describe("FileStore", () => {
  it("saves under a fresh random id edge will accept, creating the directory", async () => {
    const { directory, files } = await store();
    const first = await files.save(Buffer.from("png bytes"), "png");
    const second = await files.save(Buffer.from("webp bytes"), "webp");
    expect(first).toMatch(generatedFileIdPattern);
    expect(second).toMatch(/\.webp$/);
    expect(first).not.toBe(second);
    expect(await readFile(join(directory, first), "utf8")).toBe("png bytes");
  });

  it("sweeps only its own files once they are older than the keep time", async () => {
    const { directory, files } = await store(60_000);
    const old = await files.save(Buffer.from("old"), "png");
    const fresh = await files.save(Buffer.from("fresh"), "png");
    const longAgo = new Date(Date.now() - 120_000);
    await utimes(join(directory, old), longAgo, longAgo);
    expect(await files.sweep()).toBe(1);
    expect(await readdir(directory)).toEqual([fresh]);
  });
});
