import { connect } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type AdminServer, startAdminServer } from "./admin-server.js";

let admin: AdminServer;
const url = (path: string) => `http://127.0.0.1:${admin.port}${path}`;

beforeAll(async () => {
  admin = await startAdminServer("127.0.0.1", 0, {
    "/healthz": (_request, response) => void response.end("ok"),
  });
});
afterAll(() => admin.close());

it("serves its routes by exact path, GET only, with /metrics always among them", async () => {
  expect(admin.port).toBeGreaterThan(0);
  expect(await (await fetch(url("/healthz?verbose=1"))).text()).toBe("ok");
  // Metrics were never started in this process: the route exists but says so.
  expect((await fetch(url("/metrics"))).status).toBe(503);
  expect((await fetch(url("/healthz/extra"))).status).toBe(404);
  expect((await fetch(url("/healthz"), { method: "POST" })).status).toBe(405);
});

it("answers a request line no URL parser accepts without failing", async () => {
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(admin.port, "127.0.0.1", () => socket.write("GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n"));
    let received = "";
    socket.on("data", (part) => {
      received += part.toString();
      if (received.includes("\r\n\r\n")) socket.end();
    });
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
  });
  expect(answer).toMatch(/^HTTP\/1\.1 404/);
  expect((await fetch(url("/healthz"))).status).toBe(200);
});
