import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { S3Error } from "./s3-errors.js";

export interface SignedRequest {
  method: string;
  /** The path and query exactly as sent, e.g. `/s3/bucket/key?partNumber=1&uploadId=…`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

const authorizationPattern =
  /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

// RFC 3986 unreserved characters stay; everything else is %XX, as SigV4 wants.
const encode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new S3Error(400, "InvalidArgument", "The query string is not properly encoded.");
  }
}

function canonicalQuery(query: string): string {
  return query
    .split("&")
    .filter(Boolean)
    .map((pair) => {
      const equals = pair.indexOf("=");
      const [name, value] = equals < 0 ? [pair, ""] : [pair.slice(0, equals), pair.slice(equals + 1)];
      return [encode(decode(name)), encode(decode(value))] as const;
    })
    .sort(([a, aValue], [b, bValue]) => (a === b ? (aValue < bValue ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return text.trim().replace(/\s+/g, " ");
}

/**
 * Checks an `Authorization: AWS4-HMAC-SHA256 …` header the way S3 does: the access key, the
 * signature over the canonical request (path as sent, sorted query, signed headers) and, when
 * the payload hash is a real one, that the body matches it. Streaming payloads are signed as
 * their `STREAMING-…` marker; their chunk signatures are not checked.
 */
export function verifySignatureV4(request: SignedRequest, credentials: Credentials): void {
  const authorization = request.headers.authorization;
  if (!authorization) throw new S3Error(403, "AccessDenied", "Access Denied");
  const match = authorizationPattern.exec(authorization);
  if (!match) {
    throw new S3Error(400, "AuthorizationHeaderMalformed", "The authorization header is malformed.");
  }
  const [, accessKeyId, date = "", region = "", service = "", signedHeaders = "", signature = ""] = match;
  if (accessKeyId !== credentials.accessKeyId) {
    throw new S3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
  }
  const payloadHash = headerValue(request.headers, "x-amz-content-sha256");
  const amzDate = headerValue(request.headers, "x-amz-date");
  if (!payloadHash || !amzDate) {
    throw new S3Error(
      400,
      "InvalidRequest",
      "Missing required header for this request: x-amz-content-sha256 or x-amz-date",
    );
  }
  const queryStart = request.url.indexOf("?");
  const path = queryStart < 0 ? request.url : request.url.slice(0, queryStart);
  const names = signedHeaders.split(";");
  const canonicalRequest = [
    request.method,
    path,
    canonicalQuery(queryStart < 0 ? "" : request.url.slice(queryStart + 1)),
    ...names.map((name) => `${name}:${headerValue(request.headers, name)}`),
    "",
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonicalRequest)].join("\n");
  const signingKey = [date, region, service, "aws4_request"].reduce<Buffer | string>(
    (key, part) => hmac(key, part),
    `AWS4${credentials.secretAccessKey}`,
  );
  const expected = hmac(signingKey, stringToSign);
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) {
    throw new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    );
  }
  if (/^[0-9a-f]{64}$/.test(payloadHash) && sha256(request.body) !== payloadHash) {
    throw new S3Error(
      400,
      "XAmzContentSHA256Mismatch",
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  }
}
