import type { IncomingHttpHeaders } from "node:http";
import { crc32 } from "node:zlib";
import { S3Error } from "./s3-errors.js";

const incomplete = () =>
  new S3Error(
    400,
    "IncompleteBody",
    "You did not provide the number of bytes specified by the Content-Length HTTP header.",
  );

/**
 * Undoes `Content-Encoding: aws-chunked`: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n`
 * repeated, a zero-size chunk, then trailer lines (`x-amz-checksum-crc32:…`) and a blank line.
 * The SDK sends it for a stream body (x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER).
 */
export function decodeAwsChunked(raw: Buffer): { data: Buffer; trailers: Map<string, string> } {
  const chunks: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", offset);
    if (lineEnd < 0) throw incomplete();
    const sizeText = raw.toString("latin1", offset, lineEnd).split(";")[0]!.trim();
    if (!/^[0-9a-f]+$/i.test(sizeText)) throw new S3Error(400, "InvalidChunkSizeError", "Invalid chunk size.");
    const size = Number.parseInt(sizeText, 16);
    offset = lineEnd + 2;
    if (size === 0) break;
    if (raw.toString("latin1", offset + size, offset + size + 2) !== "\r\n") throw incomplete();
    chunks.push(raw.subarray(offset, offset + size));
    offset += size + 2;
  }
  const trailers = new Map<string, string>();
  for (const line of raw.toString("latin1", offset).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { data: Buffer.concat(chunks), trailers };
}

const isChunked = (headers: IncomingHttpHeaders) =>
  String(headers["x-amz-content-sha256"] ?? "").startsWith("STREAMING-") ||
  String(headers["content-encoding"] ?? "")
    .split(",")
    .some((encoding) => encoding.trim() === "aws-chunked");

/**
 * The object bytes of a PutObject or UploadPart body, framing removed. A CRC32 the client sent
 * (header or trailer) is checked, as S3 does; other checksum algorithms are taken on trust.
 */
export function objectPayload(headers: IncomingHttpHeaders, body: Buffer): Buffer {
  if (!isChunked(headers)) {
    verifyCrc32(body, headers["x-amz-checksum-crc32"]);
    return body;
  }
  const { data, trailers } = decodeAwsChunked(body);
  const declared = headers["x-amz-decoded-content-length"];
  if (declared !== undefined && Number(declared) !== data.length) throw incomplete();
  verifyCrc32(data, headers["x-amz-checksum-crc32"] ?? trailers.get("x-amz-checksum-crc32"));
  return data;
}

function verifyCrc32(data: Buffer, expected: string | string[] | undefined): void {
  if (typeof expected !== "string") return;
  const actual = Buffer.alloc(4);
  actual.writeUInt32BE(crc32(data));
  if (actual.toString("base64") !== expected) {
    throw new S3Error(400, "BadDigest", "The CRC32 you specified did not match the calculated checksum.");
  }
}
