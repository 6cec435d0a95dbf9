import { type Exchange, type Handler, type SimulatorState, sendJson, writeHead } from "../http.js";
import { abortMultipartUpload, completeMultipartUpload, createMultipartUpload, uploadPart } from "./multipart.js";
import type { ObjectStore } from "./object-store.js";
import { deleteObject, getObject, headObject, type ObjectTarget, putObject } from "./objects.js";
import { S3Error, sendS3Error } from "./s3-errors.js";
import { verifySignatureV4 } from "./signature-v4.js";

type Operation = (exchange: Exchange, store: ObjectStore, target: ObjectTarget, query: URLSearchParams) => void;

// Path-style addressing below this prefix: an SDK's endpoint is `<simulator url>/s3`.
const prefix = "/s3/";

const notImplemented = () =>
  new S3Error(501, "NotImplemented", "A header or query you provided implies functionality that is not implemented.");

function operationOf(method: string, query: URLSearchParams): Operation | undefined {
  if (method === "PUT") return query.has("uploadId") ? uploadPart : putObject;
  if (method === "POST" && query.has("uploads")) return createMultipartUpload;
  if (method === "POST" && query.has("uploadId")) return completeMultipartUpload;
  if (method === "DELETE") return query.has("uploadId") ? abortMultipartUpload : deleteObject;
  if (method === "GET") return getObject;
  if (method === "HEAD") return headObject;
  return undefined;
}

function targetOf(path: string): ObjectTarget {
  const [bucket = "", ...key] = path.slice(prefix.length).split("/");
  try {
    return { bucket: decodeURIComponent(bucket), key: decodeURIComponent(key.join("/")) };
  } catch {
    throw new S3Error(400, "InvalidURI", "Couldn't parse the specified URI.");
  }
}

function serve(exchange: Exchange, store: ObjectStore): void {
  const url = exchange.request.url ?? "/";
  verifySignatureV4(
    { method: exchange.method, url, headers: exchange.request.headers, body: exchange.bodyBytes },
    store.options,
  );
  const query = new URL(url, "http://simulator").searchParams;
  const target = targetOf(exchange.path);
  if (target.bucket === "") throw notImplemented();
  if (!store.hasBucket(target.bucket)) throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist.");
  if (target.key === "") {
    // HeadBucket, which clients use to check the bucket; no other bucket operation is simulated.
    if (exchange.method !== "HEAD") throw notImplemented();
    writeHead(exchange, 200, { "x-amz-request-id": exchange.id });
    exchange.response.end();
    return;
  }
  const operation = operationOf(exchange.method, query);
  if (!operation || exchange.request.headers["x-amz-copy-source"]) throw notImplemented();
  operation(exchange, store, target, query);
}

/** A minimal S3: objects, multipart uploads and ranged reads, SigV4-checked against one key pair. */
export function s3Api(exchange: Exchange, state: SimulatorState): void {
  // Object bytes would only fill the request log; their size says enough.
  if (exchange.record && exchange.method === "PUT") exchange.record.body = { bytes: exchange.bodyBytes.length };
  try {
    serve(exchange, state.objects);
  } catch (error) {
    if (!(error instanceof S3Error)) throw error;
    sendS3Error(exchange, error);
  }
}

export const s3Routes: [method: string, path: RegExp, handler: Handler][] = [
  "GET",
  "HEAD",
  "PUT",
  "POST",
  "DELETE",
].map((method) => [method, /^\/s3\//, s3Api]);

/** `GET /_sim/s3`: every stored object (bucket, key, size) and how many multipart uploads are open. */
export function listStoredObjects(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { data: state.objects.list(), pending_uploads: state.objects.pendingUploads() });
}

export function clearStoredObjects(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { cleared: state.objects.clear() });
}
