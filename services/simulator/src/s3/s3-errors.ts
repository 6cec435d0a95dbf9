import { escapeMarkup } from "../escape-markup.js";
import { type Exchange, writeHead } from "../http.js";

/** A failure in S3's own terms: the HTTP status and the `<Code>` SDKs turn into exception names. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const noSuchKey = () => new S3Error(404, "NoSuchKey", "The specified key does not exist.");
export const noSuchUpload = () =>
  new S3Error(
    404,
    "NoSuchUpload",
    "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
  );

export function sendXml(exchange: Exchange, status: number, xml: string): void {
  if (exchange.closed || exchange.response.headersSent) return;
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
  writeHead(exchange, status, {
    "content-type": "application/xml",
    "content-length": Buffer.byteLength(body),
    "x-amz-request-id": exchange.id,
  });
  exchange.response.end(body);
}

/** S3's `<Error>` document; a HEAD answer carries no body, so SDKs go by the status there. */
export function sendS3Error(exchange: Exchange, error: S3Error): void {
  if (exchange.method === "HEAD") {
    if (exchange.closed || exchange.response.headersSent) return;
    writeHead(exchange, error.status, { "x-amz-request-id": exchange.id });
    exchange.response.end();
    return;
  }
  const resource = escapeMarkup(exchange.path);
  sendXml(
    exchange,
    error.status,
    `<Error><Code>${error.code}</Code><Message>${escapeMarkup(error.message)}</Message>` +
      `<Resource>${resource}</Resource><RequestId>${exchange.id}</RequestId></Error>`,
  );
}
