import type { ServerResponse } from "node:http";

/**
 * The largest unread remainder edge still takes in after a refusal: more than the largest JSON
 * body it reads (BODY_LIMIT, 20 MB by default), so a client that sends its whole body before
 * reading the answer (fetch does) gets the refusal, a 401 or a retryable 429, not a reset.
 */
export const drainedBodyBytes = 32 * 1024 * 1024;

// After answering a refusal of a larger body, edge goes on reading (and dropping) this much more
// of it, or for this long, before it closes the connection. Closing at once resets a connection
// whose client is still writing, and a reset can make the client's kernel drop the answer it has
// not read yet; a short linger lets the answer be read, and bounds what the rest costs.
const LINGER_BYTES = 4 * 1024 * 1024;
const LINGER_MS = 1_000;
const LINGER_CHECK_MS = 10;

/**
 * A refusal answered before a larger body (or a chunked one, of no declared size) was read
 * closes the connection soon after the answer is out, instead of reading the rest: Node would
 * read and discard it all to keep the connection alive (4 GB cost 4.7 s of edge's CPU).
 */
export function closeAfterUnreadBody(response: ServerResponse): void {
  const request = response.req;
  if (request.complete || Number(request.headers["content-length"]) <= drainedBodyBytes) return;
  response.once("finish", () => {
    if (request.complete) return;
    const { socket } = request;
    const lastByte = socket.bytesRead + LINGER_BYTES;
    const startedAt = Date.now();
    // Node is now reading the rest to drop it; what it has read is watched on the socket.
    const watch = setInterval(() => {
      if (socket.bytesRead > lastByte || Date.now() - startedAt > LINGER_MS) socket.destroy();
    }, LINGER_CHECK_MS);
    watch.unref();
    socket.once("close", () => clearInterval(watch));
  });
}
