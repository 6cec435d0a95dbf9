import { resolve } from "node:path";
import { FileUrlSigner } from "./signed-file-url.js";

export interface GeneratedFilesSettings {
  directory: string;
  // Absent: a random key per process, so URLs only work on the edge that made them.
  signingKey: string | undefined;
  ttlSeconds: number;
}

/** Where generated images live and how their URLs are made. */
export class GeneratedFiles {
  readonly directory: string;
  readonly signer: FileUrlSigner;

  constructor(settings: GeneratedFilesSettings) {
    this.directory = resolve(settings.directory);
    const key = settings.signingKey ? Buffer.from(settings.signingKey) : crypto.getRandomValues(Buffer.alloc(32));
    this.signer = new FileUrlSigner(key, settings.ttlSeconds);
  }

  /** The absolute, signed URL of a stored file under edge's public base URL. */
  urlFor(baseUrl: string, fileId: string): string {
    return `${baseUrl}/files/generated/${fileId}?${this.signer.query(fileId)}`;
  }
}
