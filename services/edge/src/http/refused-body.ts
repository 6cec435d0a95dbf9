import type { ServerResponse } from "node:http";

/**
 * The largest unread remainder edge still takes in after a refusal: more than the largest JSON
 * body it reads (BODY_LIMIT, 20 MB by default), so a client that sends its whole body before
 * reading the answer (fetch does) gets the refusal, a 401 or a retryable 429, not a reset.
 */
export const drainedBodyBytes = 32 * 1024 * 1024;

/**
 * A refusal answered before a larger body (or a chunked one, of no declared size) was read
 * closes the connection once the answer is out, instead of reading the rest: Node would read
 * and discard it to keep the connection alive (4 GB cost 4.7 s of edge's CPU).
 */
export function closeAfterUnreadBody(response: ServerResponse): void {
  const request = response.req;
  if (request.complete || Number(request.headers["content-length"]) <= drainedBodyBytes) return;
  response.setHeader("connection", "close");
  response.once("finish", () => {
    if (!request.complete) request.socket.destroy();
  });
}
