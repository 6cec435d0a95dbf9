import type { SqlPool } from "@gateway/platform";
import type { VideoStorage } from "../storage/video-storage.js";

/**
 * Deletes tasks past their 24-hour lifetime and then their files, except completed tasks whose
 * usage is not yet published (the row is the only record of that charge). The row goes first,
 * so a link can never point at a task whose file is half gone; a file whose removal fails is
 * logged by the caller and is unreachable (no row names it).
 */
export async function purgeExpired(
  pool: SqlPool,
  storage: VideoStorage,
  options: { now: Date; limit: number },
): Promise<{ purged: number; fileErrors: unknown[] }> {
  const { rows } = await pool.query<{ storageKey: string | null }>({
    name: "video-purge-expired",
    text: `
      DELETE FROM video.tasks
      WHERE id IN (
        SELECT id FROM video.tasks
        WHERE expires_at <= $1 AND (status <> 'completed' OR usage_published_at IS NOT NULL)
        LIMIT $2 FOR UPDATE SKIP LOCKED
      )
      RETURNING storage_key AS "storageKey"`,
    values: [options.now, options.limit],
  });
  const removals = await Promise.allSettled(
    rows.flatMap((row) => (row.storageKey ? [storage.remove(row.storageKey)] : [])),
  );
  const fileErrors = removals.flatMap((removal) => (removal.status === "rejected" ? [removal.reason] : []));
  return { purged: rows.length, fileErrors };
}
