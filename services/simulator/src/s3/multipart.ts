import { escapeMarkup } from "../escape-markup.js";
import { type Exchange, writeHead } from "../http.js";
import type { ObjectStore } from "./object-store.js";
import type { ObjectTarget } from "./objects.js";
import { objectPayload } from "./payload.js";
import { S3Error, sendXml } from "./s3-errors.js";

const namespace = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const malformed = () =>
  new S3Error(400, "MalformedXML", "The XML you provided was not well-formed or did not validate.");

const unescapeMarkup = (text: string) =>
  text.replace(
    /&(quot|apos|lt|gt|amp);/g,
    (_, name: string) => ({ quot: '"', apos: "'", lt: "<", gt: ">", amp: "&" })[name] ?? "",
  );

export function createMultipartUpload(exchange: Exchange, store: ObjectStore, { bucket, key }: ObjectTarget): void {
  const uploadId = store.createUpload(bucket, key, exchange.request.headers["content-type"] ?? "binary/octet-stream");
  sendXml(
    exchange,
    200,
    `<InitiateMultipartUploadResult ${namespace}><Bucket>${escapeMarkup(bucket)}</Bucket>` +
      `<Key>${escapeMarkup(key)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
  );
}

export function uploadPart(exchange: Exchange, store: ObjectStore, target: ObjectTarget, query: URLSearchParams): void {
  const partNumber = Number(query.get("partNumber"));
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000) {
    throw new S3Error(400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive");
  }
  const body = objectPayload(exchange.request.headers, exchange.bodyBytes);
  const etag = store.putPart(target.bucket, target.key, query.get("uploadId") ?? "", partNumber, body);
  writeHead(exchange, 200, { etag, "content-length": 0, "x-amz-request-id": exchange.id });
  exchange.response.end();
}

/** Reads `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"…"</ETag></Part>…`. */
function listedParts(xml: string): { partNumber: number; etag: string }[] {
  if (!/<CompleteMultipartUpload[\s>]/.test(xml)) throw malformed();
  return [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, part = ""]) => {
    const partNumber = /<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(part)?.[1];
    const etag = /<ETag>([\s\S]*?)<\/ETag>/.exec(part)?.[1];
    if (partNumber === undefined || etag === undefined) throw malformed();
    return { partNumber: Number(partNumber), etag: unescapeMarkup(etag.trim()) };
  });
}

export function completeMultipartUpload(
  exchange: Exchange,
  store: ObjectStore,
  { bucket, key }: ObjectTarget,
  query: URLSearchParams,
): void {
  const object = store.complete(bucket, key, query.get("uploadId") ?? "", listedParts(exchange.bodyText));
  sendXml(
    exchange,
    200,
    `<CompleteMultipartUploadResult ${namespace}><Location>${escapeMarkup(exchange.path)}</Location>` +
      `<Bucket>${escapeMarkup(bucket)}</Bucket><Key>${escapeMarkup(key)}</Key>` +
      `<ETag>${escapeMarkup(object.etag)}</ETag></CompleteMultipartUploadResult>`,
  );
}

export function abortMultipartUpload(
  exchange: Exchange,
  store: ObjectStore,
  { bucket, key }: ObjectTarget,
  query: URLSearchParams,
): void {
  store.abort(bucket, key, query.get("uploadId") ?? "");
  writeHead(exchange, 204, { "x-amz-request-id": exchange.id });
  exchange.response.end();
}
