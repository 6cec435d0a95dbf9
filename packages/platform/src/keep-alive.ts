import type { Server } from "node:http";

/**
 * How long an HTTP server keeps an idle keep-alive connection: longer than the idle timeouts
 * of common clients and load balancers (undici/Node fetch 4 s, or the server's `Keep-Alive`
 * hint less 1 s; AWS ALB 60 s), so a client never sends a request on a connection the server
 * is closing that very moment, which the client sees as a socket closed without an answer
 * (undici's UND_ERR_SOCKET). Node's default of 5 s sits 1 s above fetch's reuse window.
 */
export const serverKeepAliveMs = 65_000;

export function keepIdleConnections(server: Server): void {
  server.keepAliveTimeout = serverKeepAliveMs;
  // Node applies it only while a request's headers arrive; kept above for older Node's rule.
  server.headersTimeout = serverKeepAliveMs + 1_000;
}
