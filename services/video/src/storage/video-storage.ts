import type { Readable } from "node:stream";

/**
 * Where finished videos live once copied from the vendor, so video_url keeps working after
 * the vendor's own copy expires. Only the filesystem implementation exists
 * (filesystem-storage.ts); an S3-compatible store would implement the same four calls
 * (PutObject from a stream, HeadObject, GetObject with a Range, DeleteObject).
 */
export interface VideoStorage {
  /** Stores the whole stream under `key`, replacing any earlier object; resolves with its size. */
  put(key: string, content: AsyncIterable<Uint8Array>): Promise<{ bytes: number }>;
  /** Size in bytes, or undefined when there is no such object. */
  size(key: string): Promise<number | undefined>;
  /** The bytes from `start` to `end` inclusive. */
  read(key: string, start: number, end: number): Readable;
  /** Removes the object; a missing one is fine. */
  remove(key: string): Promise<void>;
}
