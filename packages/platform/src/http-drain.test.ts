import { once } from "node:events";
import { createServer, get, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { drainHttpServer, HttpDrain, shutdownCutOf } from "./http-drain.js";
import { createLogger } from "./logger.js";

const logger = createLogger("http-drain-test", "silent");
let server: Server | undefined;

afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

/** A server whose `/slow` answers when its request's cut signal aborts, or after `slowMs`. */
async function serve(drain: HttpDrain, slowMs: number): Promise<string> {
  server = createServer((request, response) =>
    drain.admit(request, response, () => {
      if (request.url !== "/slow") return void response.end("quick");
      response.writeHead(200).write("started ");
      const timer = setTimeout(() => response.end("finished"), slowMs);
      shutdownCutOf(response)?.addEventListener("abort", () => {
        clearTimeout(timer);
        response.end("cut");
      });
    }),
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const refuse = (response: ServerResponse) => response.writeHead(503).end("refused");

/**
 * A request on a connection of its own: the drain closes idle keep-alive connections when it
 * starts refusing, and one reused at that instant would be reset rather than refused.
 */
async function getOnNewConnection(url: string): Promise<[number | undefined, string | undefined, string]> {
  const [response] = await once(get(url, { agent: false }), "response");
  let body = "";
  for await (const chunk of response) body += chunk;
  return [response.statusCode, response.headers.connection, body];
}

it("turns not-ready, refuses new requests with connection: close, and lets those in flight finish", async () => {
  const drain = new HttpDrain(refuse);
  const url = await serve(drain, 300);
  const slow = fetch(`${url}/slow`).then((response) => response.text());
  await new Promise((resolve) => setTimeout(resolve, 50));

  const drained = drainHttpServer(server!, drain, { readinessDelayMs: 100, graceMs: 5_000 }, logger);
  expect(drain.ready).toBe(false);
  // Served during the readiness delay.
  expect(await (await fetch(`${url}/quick`)).text()).toBe("quick");
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(await getOnNewConnection(`${url}/quick`)).toEqual([503, "close", "refused"]);

  expect(await slow).toBe("started finished");
  await drained;
});

it("cuts the requests still in flight when the grace period ends", async () => {
  const drain = new HttpDrain(refuse);
  const url = await serve(drain, 60_000);
  const slow = fetch(`${url}/slow`).then((response) => response.text());
  await new Promise((resolve) => setTimeout(resolve, 50));

  const startedAt = Date.now();
  await drainHttpServer(server!, drain, { readinessDelayMs: 0, graceMs: 200 }, logger);
  expect(Date.now() - startedAt).toBeLessThan(2_000);
  expect(await slow).toBe("started cut");
});
