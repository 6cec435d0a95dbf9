import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { GatewayError } from "./errors.js";

// What Node's HTTP parser refuses before any route sees the request, by its error code.
const refusals: Record<string, [status: number, reason: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    "Request Header Fields Too Large",
    "The request line and headers are too large (16 KB at most).",
  ],
  HPE_URI_TOO_LONG: [414, "URI Too Long", "The request URL is too long."],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "The request took too long to arrive."],
};
const malformed: [number, string, string] = [400, "Bad Request", "The request is not valid HTTP."];

/**
 * Answers requests Node's parser refuses (an over-long URL or header, broken HTTP) with
 * OpenAI's error body instead of Node's empty one, so clients see an error they can read.
 */
export function answerMalformedHttp(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
    const [status, reason, message] = refusals[error.code ?? ""] ?? malformed;
    const body = JSON.stringify(new GatewayError(status, "invalid_request_error", null, message).toBody());
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
