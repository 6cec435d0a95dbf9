import { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  type S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { VideoStorage } from "./video-storage.js";

const isNotFound = (error: unknown) => error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404;

/**
 * Videos as objects in an S3-compatible bucket, under an optional key prefix. A write streams
 * in parts (multipart upload once the video outgrows one part), so memory holds a few parts,
 * never the whole video; a failed write aborts its upload and leaves no object.
 */
export class S3Storage implements VideoStorage {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix = "",
  ) {}

  private location(key: string) {
    return { Bucket: this.bucket, Key: `${this.prefix}${key}` };
  }

  /** Fails unless the bucket exists and the credentials may use it, so a bad setting shows at start. */
  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      // HeadBucket answers have no body: the status is all there is to tell a missing bucket from a refusal.
      const status = error instanceof S3ServiceException ? ` (HTTP ${error.$metadata.httpStatusCode})` : "";
      throw new Error(`bucket ${this.bucket} cannot be used${status}`, { cause: error });
    }
  }

  async put(key: string, content: AsyncIterable<Uint8Array>): Promise<{ bytes: number }> {
    let bytes = 0;
    async function* counted() {
      for await (const chunk of content) {
        bytes += chunk.length;
        yield chunk;
      }
    }
    const upload = new Upload({
      client: this.client,
      params: { ...this.location(key), Body: Readable.from(counted()), ContentType: "video/mp4" },
    });
    await upload.done();
    return { bytes };
  }

  async size(key: string): Promise<number | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand(this.location(key)));
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async read(key: string, start: number, end: number): Promise<Readable> {
    const object = await this.client.send(
      new GetObjectCommand({ ...this.location(key), Range: `bytes=${start}-${end}` }),
    );
    // In Node the SDK's body is the HTTP response stream itself.
    if (!(object.Body instanceof Readable)) throw new Error("the S3 client returned no Node.js stream");
    return object.Body;
  }

  /** S3 answers a delete of a missing key with success too. */
  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand(this.location(key)));
  }
}
