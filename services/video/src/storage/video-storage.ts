import type { Readable } from "node:stream";

/**
 * Where finished videos live once copied from the vendor, so video_url keeps working after
 * the vendor's own copy expires: a directory (filesystem-storage.ts) or an S3-compatible
 * bucket (s3-storage.ts); create-video-storage.ts picks one from the configuration.
 */
export interface VideoStorage {
  /** Stores the whole stream under `key`, replacing any earlier object; resolves with its size. */
  put(key: string, content: AsyncIterable<Uint8Array>): Promise<{ bytes: number }>;
  /** Size in bytes, or undefined when there is no such object. */
  size(key: string): Promise<number | undefined>;
  /** The bytes from `start` to `end` inclusive; resolves once the store has started sending them. */
  read(key: string, start: number, end: number): Promise<Readable>;
  /** Removes the object; a missing one is fine. */
  remove(key: string): Promise<void>;
}
