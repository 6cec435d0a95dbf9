import { GatewayError } from "@gateway/platform";
import type { Request, Response } from "express";
import { sendError } from "./send-error.js";

// A body must keep arriving: at least this much in every window while it is read. The slowest
// real upload (a phone on a poor link) sends far more; a client that declares a large body
// and then stalls or trickles it would otherwise hold its share of the body budget until
// Node's 300 s request timeout.
export const BODY_WINDOW_MS = 5_000;
const MIN_BYTES_PER_WINDOW = 16 * 1024;

const tooSlow = () =>
  new GatewayError(
    408,
    "invalid_request_error",
    "request_timeout",
    `The request body arrived too slowly (under ${MIN_BYTES_PER_WINDOW / 1024} KB in ${BODY_WINDOW_MS / 1000} s). Send it again.`,
    null,
    1_000,
  );

/**
 * Answers 408 and closes the connection (which gives back what the request holds of the body
 * budget) once a body being read stalls: fewer than MIN_BYTES_PER_WINDOW bytes reach the
 * socket in a window before the body is complete.
 */
export function refuseStalledBody(request: Request, response: Response): void {
  const { socket } = request;
  let seen = socket.bytesRead;
  const timer = setInterval(() => {
    if (request.complete || response.writableEnded || socket.destroyed) return clearInterval(timer);
    const arrived = socket.bytesRead - seen;
    seen = socket.bytesRead;
    if (arrived >= MIN_BYTES_PER_WINDOW) return;
    clearInterval(timer);
    if (response.headersSent) return request.destroy();
    response.setHeader("connection", "close");
    response.once("finish", () => request.destroy());
    sendError(response, tooSlow());
  }, BODY_WINDOW_MS);
  timer.unref();
  response.once("close", () => clearInterval(timer));
}
