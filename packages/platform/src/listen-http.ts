import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { keepIdleConnections } from "./keep-alive.js";
import { answerMalformedHttp } from "./malformed-http.js";

/**
 * Starts an HTTP server the way every service's is: idle keep-alive connections kept past the
 * clients' reuse window, malformed requests answered, listening on `host`:`port` (0: a free
 * port). Resolves the port bound; rejects if it cannot listen (a port in use).
 */
export async function listenHttp(server: Server, port: number, host: string): Promise<number> {
  keepIdleConnections(server);
  answerMalformedHttp(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
