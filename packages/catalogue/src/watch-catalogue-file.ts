import { createHash } from "node:crypto";
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "@gateway/platform";

export interface CatalogueWatch {
  close(): void;
}

const fingerprint = (path: string): string | undefined => {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    // Between a rename and its successor the file may briefly be missing; the next event tells.
    return undefined;
  }
};

/**
 * Reloads the catalogue when the file at `path` changes. It watches the directory, not the
 * file: the kubelet updates a ConfigMap mount by swapping a symlink (`..data`), and editors
 * replace files by renaming, so a watch on the file itself would keep following the old one.
 * Changes come in bursts; the reload waits until the directory has been quiet for
 * `debounceMs`, and runs only when the content differs from what was last seen. A broken file
 * is refused by `reload()` (logged; the old catalogue stays in force).
 */
export function watchCatalogueFile(
  catalogue: { reload(): unknown },
  path: string,
  logger: Logger,
  debounceMs = 500,
): CatalogueWatch {
  let seen = fingerprint(path);
  let timer: NodeJS.Timeout | undefined;
  const reloadIfChanged = () => {
    const current = fingerprint(path);
    if (current === undefined || current === seen) return;
    seen = current;
    catalogue.reload();
  };
  let watcher: FSWatcher;
  try {
    watcher = watch(dirname(path), { persistent: false }, () => {
      clearTimeout(timer);
      timer = setTimeout(reloadIfChanged, debounceMs);
    });
  } catch (error) {
    // Out of inotify watches, say: the service runs on, reloading on SIGHUP only.
    logger.warn({ err: error, path }, "cannot watch the catalogue; SIGHUP still reloads it");
    return { close: () => undefined };
  }
  watcher.on("error", (error) => {
    logger.warn({ err: error, path }, "catalogue watch stopped; SIGHUP still reloads it");
  });
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
