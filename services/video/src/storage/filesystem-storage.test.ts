import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { afterEach, describe, expect, it } from "vitest";
import { FilesystemStorage } from "./filesystem-storage.js";

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function storage() {
  const folder = await mkdtemp(join(tmpdir(), "video-storage-"));
  folders.push(folder);
  return { folder, storage: new FilesystemStorage(join(folder, "videos")) };
}

async function* chunks(...parts: string[]) {
  for (const part of parts) yield Buffer.from(part);
}

describe("FilesystemStorage", () => {
  it("stores, measures, reads a range and removes", async () => {
    const { storage: store } = await storage();
    expect(await store.put("task_1.mp4", chunks("hello ", "world"))).toEqual({ bytes: 11 });
    expect(await store.size("task_1.mp4")).toBe(11);
    expect(await text(await store.read("task_1.mp4", 6, 10))).toBe("world");
    await store.remove("task_1.mp4");
    expect(await store.size("task_1.mp4")).toBeUndefined();
    await store.remove("task_1.mp4");
  });

  it("leaves nothing behind when the source fails", async () => {
    const { folder, storage: store } = await storage();
    async function* broken() {
      yield Buffer.from("partial");
      throw new Error("vendor went away");
    }
    await expect(store.put("task_2.mp4", broken())).rejects.toThrow("vendor went away");
    expect(await readdir(join(folder, "videos"))).toEqual([]);
  });

  it("refuses keys that could leave the directory", async () => {
    const { storage: store } = await storage();
    await expect(store.size("../escape.mp4")).rejects.toThrow(/unsafe/);
  });
});
