import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ImageFetchPolicy } from "../adapters/adapter-registry.js";
import { FetchBudget } from "./fetch-budget.js";
import { fetchImage, imageFromDataUrl } from "./fetch-image.js";

const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de", "hex");
let server: Server;
let origin: string;
let host: string;
let hits: string[] = [];

const pages: Record<string, (response: ServerResponse) => void> = {
  "/red.png": (response) => response.writeHead(200, { "content-type": "image/png" }).end(png),
  "/photo.jpg": (response) => response.writeHead(200, { "content-type": "image/jpeg; charset=binary" }).end(png),
  "/page.html": (response) => response.writeHead(200, { "content-type": "text/html" }).end("<html></html>"),
  "/drawing.svg": (response) => response.writeHead(200, { "content-type": "image/svg+xml" }).end("<svg/>"),
  "/big-declared.png": (response) =>
    response.writeHead(200, { "content-type": "image/png", "content-length": "5000" }).end(Buffer.alloc(5000)),
  "/big-chunked.png": (response) => {
    response.writeHead(200, { "content-type": "image/png" });
    for (let index = 0; index < 10; index++) response.write(Buffer.alloc(500));
    response.end();
  },
  "/slow.png": (response) => {
    setTimeout(() => response.writeHead(200, { "content-type": "image/png" }).end(png), 2_000).unref();
  },
  "/missing.png": (response) => response.writeHead(404).end(),
  "/to-red.png": (response) => response.writeHead(302, { location: "/red.png" }).end(),
  "/to-private.png": (response) => response.writeHead(302, { location: "http://10.0.0.1/x.png" }).end(),
  "/loop.png": (response) => response.writeHead(302, { location: "/loop.png" }).end(),
};

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? "");
    (pages[request.url ?? ""] ?? ((reply: ServerResponse) => reply.writeHead(404).end()))(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin = `http://${host}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  hits = [];
});

const policy = (overrides: Partial<ImageFetchPolicy> = {}): ImageFetchPolicy => ({
  allowedPrivateHosts: [host],
  maxBytes: 1024,
  maxRequestBytes: 1_000_000,
  timeoutMs: 1_000,
  ...overrides,
});
const fetchWith = (url: string, overrides: Partial<ImageFetchPolicy> = {}, budget = new FetchBudget(1_000_000)) =>
  fetchImage(url, policy(overrides), budget, new AbortController().signal);
const refusal = (message: RegExp) =>
  expect.objectContaining({ httpStatus: 400, param: "messages", message: expect.stringMatching(message) });

describe("downloading an image for inline use", () => {
  it("downloads from an allow-listed private host", async () => {
    expect(await fetchWith(`${origin}/red.png`)).toEqual({ mimeType: "image/png", data: png.toString("base64") });
  });

  it("accepts the bare host name in the allow-list, and drops content-type parameters", async () => {
    const image = await fetchWith(`${origin}/photo.jpg`, { allowedPrivateHosts: ["127.0.0.1"] });
    expect(image.mimeType).toBe("image/jpeg");
  });

  it("resolves a host name and connects to the addresses it checked", async () => {
    const port = host.split(":")[1];
    const image = await fetchWith(`http://localhost:${port}/red.png`, { allowedPrivateHosts: [`localhost:${port}`] });
    expect(image.mimeType).toBe("image/png");
  });

  it.each([
    "http://127.0.0.1:1/x.png",
    "http://10.0.0.1/x.png",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/x.png",
    "http://[fc00::1]/x.png",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[::ffff:127.0.0.1]/x.png",
    "http://0x7f000001/x.png",
    "http://localhost/x.png",
  ])("refuses %s, which is private and not allow-listed", async (url) => {
    await expect(fetchWith(url)).rejects.toEqual(refusal(/private or reserved network/));
  });

  it("refuses the allow-listed server's address under another port", async () => {
    await expect(fetchWith(`${origin}/red.png`, { allowedPrivateHosts: ["127.0.0.1:1"] })).rejects.toEqual(
      refusal(/private/),
    );
    expect(hits).toEqual([]);
  });

  it.each(["file:///etc/passwd", "ftp://example.com/a.png", "gopher://x/", "not a url"])(
    "refuses %s, which is not http(s)",
    async (url) => {
      await expect(fetchWith(url)).rejects.toEqual(refusal(/http and https|malformed/));
    },
  );

  it("refuses a host that does not resolve", async () => {
    await expect(fetchWith("http://no-such-host.invalid/x.png")).rejects.toEqual(refusal(/could not be resolved/));
  });

  it("refuses what is not a supported image type", async () => {
    await expect(fetchWith(`${origin}/page.html`)).rejects.toEqual(refusal(/unsupported content type "text\/html"/));
    await expect(fetchWith(`${origin}/drawing.svg`)).rejects.toEqual(refusal(/image\/svg\+xml/));
  });

  it("refuses an image larger than the limit, declared or streamed", async () => {
    await expect(fetchWith(`${origin}/big-declared.png`)).rejects.toEqual(refusal(/larger than 1024 bytes/));
    await expect(fetchWith(`${origin}/big-chunked.png`)).rejects.toEqual(refusal(/larger than 1024 bytes/));
  });

  it("gives up after the time limit", async () => {
    const started = Date.now();
    await expect(fetchWith(`${origin}/slow.png`, { timeoutMs: 200 })).rejects.toEqual(refusal(/longer than 200 ms/));
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("reports an HTTP failure", async () => {
    await expect(fetchWith(`${origin}/missing.png`)).rejects.toEqual(refusal(/HTTP 404/));
  });

  it("checks every redirect hop again", async () => {
    expect((await fetchWith(`${origin}/to-red.png`)).mimeType).toBe("image/png");
    await expect(fetchWith(`${origin}/to-private.png`)).rejects.toEqual(refusal(/private/));
    await expect(fetchWith(`${origin}/loop.png`)).rejects.toEqual(refusal(/redirects/));
  });

  it("lets a departed client's abort through as it is, not as a 400", async () => {
    const controller = new AbortController();
    const pending = fetchImage(`${origin}/slow.png`, policy(), new FetchBudget(1_000_000), controller.signal);
    setTimeout(() => controller.abort(new Error("client left")), 50);
    await expect(pending).rejects.toThrow("client left");
  });
});

describe("a request's download budget", () => {
  const roomy = { maxBytes: 10_000 };

  it("is shared by the request's downloads: the one that passes it is refused", async () => {
    const budget = new FetchBudget(7_000);
    expect((await fetchWith(`${origin}/big-chunked.png`, roomy, budget)).mimeType).toBe("image/png");
    await expect(fetchWith(`${origin}/big-chunked.png`, roomy, budget)).rejects.toEqual(
      refusal(/together the images are larger than 7000 bytes/),
    );
  });

  it("refuses a declared length beyond what is left, before reading it", async () => {
    const budget = new FetchBudget(6_000);
    budget.add(2_000);
    await expect(fetchWith(`${origin}/big-declared.png`, roomy, budget)).rejects.toEqual(refusal(/together/));
  });
});

describe("data URLs", () => {
  it("reads a base64 image", () => {
    expect(imageFromDataUrl(`data:image/png;base64,${png.toString("base64")}`, { maxBytes: 1024 })).toEqual({
      mimeType: "image/png",
      data: png.toString("base64"),
    });
  });

  it("refuses other types, bad base64 and oversized images", () => {
    expect(() => imageFromDataUrl("data:text/plain;base64,aGk=", { maxBytes: 10 })).toThrow(/unsupported content/);
    expect(() => imageFromDataUrl("data:image/png;base64,@@@", { maxBytes: 10 })).toThrow(/not valid base64/);
    expect(() => imageFromDataUrl(`data:image/png;base64,${"A".repeat(100)}`, { maxBytes: 10 })).toThrow(/larger/);
  });
});
