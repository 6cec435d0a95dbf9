import { type Exchange, writeHead } from "../http.js";
import type { ObjectStore, StoredObject } from "./object-store.js";
import { objectPayload } from "./payload.js";
import { noSuchKey, S3Error } from "./s3-errors.js";

export interface ObjectTarget {
  bucket: string;
  key: string;
}

function objectHeaders(object: StoredObject) {
  return {
    "content-type": object.contentType,
    etag: object.etag,
    "last-modified": object.lastModified.toUTCString(),
    "accept-ranges": "bytes",
  };
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n`; anything else is ignored and the whole object is sent. */
function requestedRange(header: string | undefined, size: number): { start: number; end: number } | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  const [, first = "", last = ""] = match;
  const start = first === "" ? Math.max(0, size - Number(last)) : Number(first);
  const end = first === "" || last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || (first === "" && Number(last) === 0)) {
    throw new S3Error(416, "InvalidRange", "The requested range is not satisfiable");
  }
  return end < start ? undefined : { start, end };
}

export function putObject(exchange: Exchange, store: ObjectStore, { bucket, key }: ObjectTarget): void {
  const body = objectPayload(exchange.request.headers, exchange.bodyBytes);
  const contentType = exchange.request.headers["content-type"] ?? "binary/octet-stream";
  const object = store.put(bucket, key, body, contentType);
  writeHead(exchange, 200, { etag: object.etag, "content-length": 0, "x-amz-request-id": exchange.id });
  exchange.response.end();
}

export function headObject(exchange: Exchange, store: ObjectStore, { bucket, key }: ObjectTarget): void {
  const object = store.get(bucket, key);
  if (!object) throw noSuchKey();
  writeHead(exchange, 200, {
    ...objectHeaders(object),
    "content-length": object.body.length,
    "x-amz-request-id": exchange.id,
  });
  exchange.response.end();
}

export function getObject(exchange: Exchange, store: ObjectStore, { bucket, key }: ObjectTarget): void {
  const object = store.get(bucket, key);
  if (!object) throw noSuchKey();
  const size = object.body.length;
  const range = requestedRange(exchange.request.headers.range, size);
  const bytes = range ? object.body.subarray(range.start, range.end + 1) : object.body;
  writeHead(exchange, range ? 206 : 200, {
    ...objectHeaders(object),
    "content-length": bytes.length,
    ...(range && { "content-range": `bytes ${range.start}-${range.end}/${size}` }),
    "x-amz-request-id": exchange.id,
  });
  exchange.response.end(bytes);
}

/** S3 answers 204 whether or not the key existed. */
export function deleteObject(exchange: Exchange, store: ObjectStore, { bucket, key }: ObjectTarget): void {
  store.delete(bucket, key);
  writeHead(exchange, 204, { "x-amz-request-id": exchange.id });
  exchange.response.end();
}
