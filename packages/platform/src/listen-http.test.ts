import { createServer } from "node:http";
import { expect, it } from "vitest";
import { serverKeepAliveMs } from "./keep-alive.js";
import { listenHttp } from "./listen-http.js";

it("resolves the free port it bound, with idle connections kept past the clients' reuse window", async () => {
  const server = createServer((_request, response) => response.end("ok"));
  const port = await listenHttp(server, 0, "127.0.0.1");
  expect(port).toBeGreaterThan(0);
  expect(server.keepAliveTimeout).toBe(serverKeepAliveMs);
  expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("ok");
  server.close();
});

it("rejects when the port is taken, instead of throwing an unhandled error", async () => {
  const first = createServer();
  const port = await listenHttp(first, 0, "127.0.0.1");
  await expect(listenHttp(createServer(), port, "127.0.0.1")).rejects.toMatchObject({ code: "EADDRINUSE" });
  first.close();
});
