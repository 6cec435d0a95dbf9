import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type PublicRequest, RefusedUrlError, requestPublicUrl } from "./request-public-url.js";

let server: Server;
let host: string;
let hits: string[] = [];
// Answers one byte a second, never finishing its status line within any test's deadline.
let trickler: TcpServer;
let tricklerHost: string;
const trickling = new Set<Socket>();

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    if (request.url === "/moved") response.writeHead(302, { location: "http://10.0.0.1/" }).end();
    else request.pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  trickler = createTcpServer((socket) => {
    trickling.add(socket);
    const answer = Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
    let sent = 0;
    const timer = setInterval(() => socket.write(answer.subarray(sent, ++sent)), 1_000);
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      trickling.delete(socket);
    });
  });
  await new Promise<void>((resolve) => trickler.listen(0, "127.0.0.1", resolve));
  tricklerHost = `127.0.0.1:${(trickler.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  for (const socket of trickling) socket.destroy();
  await Promise.all([
    new Promise((resolve) => server.close(resolve)),
    new Promise((resolve) => trickler.close(resolve)),
  ]);
});
beforeEach(() => {
  hits = [];
});

const request = (overrides: Partial<PublicRequest> = {}): PublicRequest => ({
  method: "POST",
  headers: { "content-type": "text/plain" },
  body: "hello",
  allowedPrivateHosts: [host, tricklerHost],
  connectTimeoutMs: 1_000,
  signal: AbortSignal.timeout(5_000),
  ...overrides,
});

async function call(url: string, overrides: Partial<PublicRequest> = {}) {
  const { response, close } = await requestPublicUrl(new URL(url), request(overrides));
  try {
    return { status: response.statusCode, body: await response.body.text(), headers: response.headers };
  } finally {
    await close();
  }
}

describe("requests to client-supplied URLs", () => {
  it("reaches an allow-listed private host", async () => {
    expect(await call(`http://${host}/echo`)).toMatchObject({ status: 200, body: "hello" });
    expect(hits).toEqual(["POST /echo"]);
  });

  it.each([
    "http://127.0.0.1/",
    "http://localhost/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:0:127.0.0.1]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::127.0.0.1]/",
    "http://[64:ff9b::169.254.169.254]/",
    "http://[2002:7f00:1::1]/",
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
    "http://0x7f000001/",
    "http://169.254.169.254/latest/meta-data/",
  ])("refuses %s, which reaches a private address", async (url) => {
    await expect(call(url, { allowedPrivateHosts: [] })).rejects.toThrow(
      expect.objectContaining({ name: "RefusedUrlError", message: expect.stringMatching(/private or reserved/) }),
    );
  });

  it("refuses the allow-listed host under another port, before connecting", async () => {
    await expect(call(`http://${host}/echo`, { allowedPrivateHosts: ["127.0.0.1:1"] })).rejects.toThrow(
      RefusedUrlError,
    );
    expect(hits).toEqual([]);
  });

  it.each([
    ["ftp://example.com/", /http and https/],
    ["file:///etc/passwd", /http and https/],
    ["http://user:secret@example.com/", /credentials/],
    ["http://no-such-host.invalid/", /could not be resolved/],
  ])("refuses %s", async (url, reason) => {
    await expect(call(url)).rejects.toThrow(expect.objectContaining({ message: expect.stringMatching(reason) }));
  });

  it("answers a redirect as it is, without following it", async () => {
    const answer = await call(`http://${host}/moved`);
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe("http://10.0.0.1/");
    expect(hits).toEqual(["POST /moved"]);
  });

  it("gives up on a server that trickles its answer when the signal's deadline passes", async () => {
    const started = Date.now();
    await expect(call(`http://${tricklerHost}/`, { signal: AbortSignal.timeout(1_500) })).rejects.toThrow();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
    expect(elapsed).toBeLessThan(4_000);
  });
});
