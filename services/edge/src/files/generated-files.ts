import { resolve } from "node:path";
import type { Request } from "express";
import { FileUrlSigner } from "./signed-file-url.js";

export interface GeneratedFilesSettings {
  directory: string;
  // Absent: a random key per process, so URLs only work on the edge that made them.
  signingKey: string | undefined;
  ttlSeconds: number;
  // The address clients reach edge at; absent, the request's own Host is used.
  publicBaseUrl: string | undefined;
}

/** Where generated images live and how their URLs are made. */
export class GeneratedFiles {
  readonly directory: string;
  readonly signer: FileUrlSigner;

  constructor(private readonly settings: GeneratedFilesSettings) {
    this.directory = resolve(settings.directory);
    const key = settings.signingKey ? Buffer.from(settings.signingKey) : crypto.getRandomValues(Buffer.alloc(32));
    this.signer = new FileUrlSigner(key, settings.ttlSeconds);
  }

  /** The absolute, signed URL of a stored file, as a client of this request reaches edge. */
  urlFor(request: Request, fileId: string): string {
    const base = this.settings.publicBaseUrl ?? `${request.protocol}://${request.get("host")}`;
    return `${base.replace(/\/$/, "")}/files/generated/${fileId}?${this.signer.query(fileId)}`;
  }
}
