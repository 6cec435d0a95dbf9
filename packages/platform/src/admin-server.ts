import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { listenHttp } from "./listen-http.js";
import { servePrometheusMetrics } from "./metrics.js";
import { pieceCostsEnabled, servePieceCosts } from "./piece-costs.js";

export type AdminRoute = (request: IncomingMessage, response: ServerResponse) => void;

export interface AdminServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * A service's small operator-facing HTTP server (Prometheus scrapes, probes): GET routes by
 * exact path, `/metrics` always among them. Kept off the public API port so an ingress never
 * exposes it; bind port 0 to get a free one (reported back in `port`). `apis` are handlers of
 * every method under a path prefix (router's catalogue admin API), each checking its own
 * credentials.
 */
export async function startAdminServer(
  host: string,
  port: number,
  routes: Record<string, AdminRoute> = {},
  apis: Record<string, AdminRoute> = {},
): Promise<AdminServer> {
  const table = new Map<string, AdminRoute>(Object.entries({ "/metrics": servePrometheusMetrics, ...routes }));
  if (pieceCostsEnabled) table.set("/piece-costs", servePieceCosts);
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    const api = Object.entries(apis).find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
    if (api) return api[1](request, response);
    // Exact paths only; the query string (if any) is ignored.
    const route = table.get(path);
    if (!route) return void response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    if (request.method !== "GET" && request.method !== "HEAD") {
      return void response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("GET only\n");
    }
    route(request, response);
  });
  const bound = await listenHttp(server, port, host);
  return {
    server,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
