import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { VideoStorage } from "./video-storage.js";

const safeKey = /^[A-Za-z0-9_-]+\.mp4$/;

/** Videos as files in one directory; a write goes to a temporary name and is renamed into place. */
export class FilesystemStorage implements VideoStorage {
  private readonly directory: string;

  constructor(directory: string) {
    this.directory = isAbsolute(directory) ? directory : resolve(directory);
  }

  private path(key: string): string {
    // Keys are made by the service from task ids; this keeps a bug from ever escaping the directory.
    if (!safeKey.test(key)) throw new Error(`unsafe storage key ${key}`);
    return join(this.directory, key);
  }

  async put(key: string, content: AsyncIterable<Uint8Array>): Promise<{ bytes: number }> {
    const target = this.path(key);
    await mkdir(this.directory, { recursive: true });
    const temporary = `${target}.${randomUUID()}.part`;
    let bytes = 0;
    try {
      await pipeline(
        content,
        async function* (source: AsyncIterable<Uint8Array>) {
          for await (const chunk of source) {
            bytes += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(temporary),
      );
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { bytes };
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(this.path(key))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async read(key: string, start: number, end: number): Promise<Readable> {
    return createReadStream(this.path(key), { start, end });
  }

  async remove(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
