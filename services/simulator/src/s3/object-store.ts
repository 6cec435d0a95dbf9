import { createHash, randomUUID } from "node:crypto";
import { noSuchUpload, S3Error } from "./s3-errors.js";

export interface ObjectStoreOptions {
  /** The only access key accepted (SIMULATOR_S3_ACCESS_KEY_ID). */
  accessKeyId: string;
  /** Its secret, which signatures are checked with (SIMULATOR_S3_SECRET_ACCESS_KEY). */
  secretAccessKey: string;
  /** Buckets that exist from the start (SIMULATOR_S3_BUCKETS); there is no CreateBucket. */
  buckets: string[];
  /** Objects and pending parts together may hold this many bytes (SIMULATOR_S3_MAX_BYTES). */
  maxBytes: number;
}

export const defaultObjectStoreOptions: ObjectStoreOptions = {
  accessKeyId: "simulator-access-key",
  secretAccessKey: "simulator-secret-key",
  buckets: ["gateway-videos"],
  maxBytes: 256 * 1024 * 1024,
};

export interface StoredObject {
  body: Buffer;
  etag: string;
  contentType: string;
  lastModified: Date;
}

interface Part {
  body: Buffer;
  etag: string;
}

interface PendingUpload {
  bucket: string;
  key: string;
  contentType: string;
  parts: Map<number, Part>;
}

const md5 = (data: Buffer) => createHash("md5").update(data).digest();
const unquoted = (etag: string) => etag.replaceAll('"', "");

/**
 * The simulated S3's objects, in memory. Bounded in bytes: a test stand-in must not grow
 * without limit when a test forgets to clean up, so past the bound a write is refused.
 */
export class ObjectStore {
  readonly options: ObjectStoreOptions;
  private readonly buckets: Map<string, Map<string, StoredObject>>;
  private readonly uploads = new Map<string, PendingUpload>();
  private bytes = 0;

  constructor(options: Partial<ObjectStoreOptions> = {}) {
    const defaults = defaultObjectStoreOptions;
    this.options = {
      accessKeyId: options.accessKeyId ?? defaults.accessKeyId,
      secretAccessKey: options.secretAccessKey ?? defaults.secretAccessKey,
      buckets: options.buckets ?? defaults.buckets,
      maxBytes: options.maxBytes ?? defaults.maxBytes,
    };
    this.buckets = new Map(this.options.buckets.map((name) => [name, new Map()]));
  }

  hasBucket(bucket: string): boolean {
    return this.buckets.has(bucket);
  }

  get(bucket: string, key: string): StoredObject | undefined {
    return this.buckets.get(bucket)?.get(key);
  }

  put(bucket: string, key: string, body: Buffer, contentType: string, etag = `"${md5(body).toString("hex")}"`) {
    const objects = this.bucketOf(bucket);
    const replaced = objects.get(key)?.body.length ?? 0;
    this.reserve(body.length - replaced);
    const object = { body, etag, contentType, lastModified: new Date() };
    objects.set(key, object);
    return object;
  }

  delete(bucket: string, key: string): void {
    const objects = this.bucketOf(bucket);
    this.bytes -= objects.get(key)?.body.length ?? 0;
    objects.delete(key);
  }

  createUpload(bucket: string, key: string, contentType: string): string {
    this.bucketOf(bucket);
    const id = randomUUID().replaceAll("-", "");
    this.uploads.set(id, { bucket, key, contentType, parts: new Map() });
    return id;
  }

  putPart(bucket: string, key: string, uploadId: string, partNumber: number, body: Buffer): string {
    const upload = this.uploadOf(bucket, key, uploadId);
    const replaced = upload.parts.get(partNumber)?.body.length ?? 0;
    this.reserve(body.length - replaced);
    const etag = `"${md5(body).toString("hex")}"`;
    upload.parts.set(partNumber, { body, etag });
    return etag;
  }

  /** Joins the listed parts, in the order given, as S3 does; unlisted parts are dropped. */
  complete(bucket: string, key: string, uploadId: string, listed: { partNumber: number; etag: string }[]) {
    const upload = this.uploadOf(bucket, key, uploadId);
    if (listed.length === 0) {
      throw new S3Error(400, "MalformedXML", "The XML you provided was not well-formed or did not validate.");
    }
    const parts = listed.map(({ partNumber, etag }, index) => {
      const part = upload.parts.get(partNumber);
      if (!part || unquoted(part.etag) !== unquoted(etag)) {
        throw new S3Error(400, "InvalidPart", "One or more of the specified parts could not be found.");
      }
      if (index > 0 && partNumber <= listed[index - 1]!.partNumber) {
        throw new S3Error(400, "InvalidPartOrder", "The list of parts was not in ascending order.");
      }
      return part;
    });
    // S3's multipart ETag: the MD5 of the parts' MD5s, then the number of parts.
    const digest = md5(Buffer.concat(parts.map((part) => Buffer.from(unquoted(part.etag), "hex"))));
    this.releaseUpload(uploadId);
    return this.put(
      bucket,
      key,
      Buffer.concat(parts.map((part) => part.body)),
      upload.contentType,
      `"${digest.toString("hex")}-${parts.length}"`,
    );
  }

  abort(bucket: string, key: string, uploadId: string): void {
    this.uploadOf(bucket, key, uploadId);
    this.releaseUpload(uploadId);
  }

  list(): { bucket: string; key: string; size: number; contentType: string }[] {
    return [...this.buckets].flatMap(([bucket, objects]) =>
      [...objects].map(([key, object]) => ({ bucket, key, size: object.body.length, contentType: object.contentType })),
    );
  }

  pendingUploads(): number {
    return this.uploads.size;
  }

  clear(): number {
    const count = this.list().length;
    for (const objects of this.buckets.values()) objects.clear();
    this.uploads.clear();
    this.bytes = 0;
    return count;
  }

  private bucketOf(bucket: string): Map<string, StoredObject> {
    const objects = this.buckets.get(bucket);
    if (!objects) throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist.");
    return objects;
  }

  private uploadOf(bucket: string, key: string, uploadId: string): PendingUpload {
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.bucket !== bucket || upload.key !== key) throw noSuchUpload();
    return upload;
  }

  private releaseUpload(uploadId: string): void {
    for (const part of this.uploads.get(uploadId)?.parts.values() ?? []) this.bytes -= part.body.length;
    this.uploads.delete(uploadId);
  }

  private reserve(extra: number): void {
    if (this.bytes + extra > this.options.maxBytes) {
      throw new S3Error(
        507,
        "InsufficientStorage",
        `The simulator's object store is full (SIMULATOR_S3_MAX_BYTES=${this.options.maxBytes}).`,
      );
    }
    this.bytes += extra;
  }
}
