import { randomBytes } from "node:crypto";
import { mkdir, readdir, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generatedFileIdPattern, type Logger } from "@gateway/platform";
import type { ImageFormat } from "./image-header.js";

/**
 * Generated images kept for `url` answers. Router writes them into a directory edge also reads
 * (GATEWAY_FILES_DIR); edge serves them at signed, expiring URLs. Files older than the URLs'
 * lifetime are deleted now and then as new ones arrive, so the directory stays bounded.
 */
export class FileStore {
  private lastSweep = 0;

  constructor(
    private readonly directory: string,
    private readonly keepMs: number,
    private readonly logger: Logger,
  ) {}

  async save(bytes: Buffer, format: ImageFormat): Promise<string> {
    const id = `img_${randomBytes(16).toString("hex")}.${format}`;
    await mkdir(this.directory, { recursive: true });
    await writeFile(join(this.directory, id), bytes, { flag: "wx" });
    if (Date.now() - this.lastSweep > this.keepMs / 4) {
      this.lastSweep = Date.now();
      this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, "generated files sweep failed"));
    }
    return id;
  }

  /** Deletes our files older than the keep time; returns how many went. */
  async sweep(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.directory)) {
      if (!generatedFileIdPattern.test(name)) continue;
      const path = join(this.directory, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > this.keepMs) {
        await unlink(path).catch(() => undefined);
        removed += 1;
      }
    }
    return removed;
  }
}
