import { randomUUID } from "node:crypto";
import { request as httpRequest, type IncomingHttpHeaders, STATUS_CODES } from "node:http";
import { connect } from "node:net";
import { eventually, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quickVideoEnv, videoApi } from "./video-fixtures.js";

// Edge listens on 127.0.0.1; these tests also connect from 127.0.0.2 (a trusted proxy here)
// and 127.0.0.3 (an untrusted peer): every 127/8 address reaches the loopback interface.
const trustedProxy = "127.0.0.2";
const untrustedPeer = "127.0.0.3";

let stack: TestStack;
let origin: string;
let apiKey: string;

beforeAll(async () => {
  stack = await startTestStack({ env: { ...quickVideoEnv, GATEWAY_TRUSTED_PROXIES: trustedProxy } });
  origin = new URL(stack.baseUrl).origin;
  apiKey = (await stack.createAccount({ group: "premium" })).api_key;
});
afterAll(async () => {
  await stack?.teardown();
});

// The fields of the answers these tests read.
interface AnswerBody {
  error: { code: string; type: string };
  object: string;
  data: Array<{ url: string }>;
  id: string;
  status: string;
  video_url: string;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: AnswerBody;
}

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  from?: string;
}

/** One request over its own connection, with any Host header and from any local address. */
function send(path: string, { method = "GET", headers = {}, body, from }: Sent = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${stack.baseUrl}${path}`);
    const request = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method, headers, localAddress: from, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(text) as AnswerBody });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const unknownKey = () => `sk-gw-${randomUUID().replaceAll("-", "")}abcdefgh`;

/**
 * Starts a request that declares a body of `declaredBytes` but sends only `sentBytes` of it,
 * and resolves with the answer that comes while the rest is still owed: an answer at all
 * proves edge did not wait to read (let alone parse) the body.
 */
function answerBeforeBody(path: string, headers: Record<string, string>, declaredBytes: number, sentBytes: number) {
  return new Promise<{ status: number; body: AnswerBody; continued: boolean }>((resolve, reject) => {
    const url = new URL(`${stack.baseUrl}${path}`);
    let continued = false;
    const request = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      agent: false,
      headers: { "content-type": "application/json", "content-length": String(declaredBytes), ...headers },
    });
    request.on("continue", () => {
      continued = true;
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        resolve({
          status: response.statusCode!,
          body: JSON.parse(Buffer.concat(chunks).toString()) as AnswerBody,
          continued,
        });
        request.destroy();
      });
    });
    request.on("error", reject);
    request.flushHeaders();
    if (sentBytes > 0) request.write("[".repeat(sentBytes));
  });
}

describe("authentication before work", () => {
  it("answers a request without a key with 401 before its body has arrived", async () => {
    const answer = await answerBeforeBody("/chat/completions", {}, 18 * 1024 * 1024, 256 * 1024);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe("invalid_api_key");
  });

  it("refuses an unknown key before the body arrives, and never asks a 100-continue client for it", async () => {
    const answer = await answerBeforeBody(
      "/embeddings",
      { ...auth(unknownKey()), expect: "100-continue" },
      10 * 1024 * 1024,
      0,
    );
    expect(answer.status).toBe(401);
    expect(answer.continued).toBe(false);
  });

  it("asks a 100-continue client with a valid key for its body and answers it", async () => {
    const body = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    const answer = await send("/chat/completions", {
      method: "POST",
      headers: { ...auth(apiKey), "content-type": "application/json", expect: "100-continue" },
      body,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.object).toBe("chat.completion");
  });

  it("refuses a body larger than the endpoint takes with 413 before reading it", async () => {
    const video = await answerBeforeBody("/videos/generations", auth(apiKey), 1024 * 1024, 0);
    expect(video.status).toBe(413);
    expect(video.body.error).toMatchObject({ code: "request_too_large", type: "invalid_request_error" });
    const images = await answerBeforeBody("/images/generations", auth(apiKey), 1024 * 1024, 0);
    expect(images.status).toBe(413);
    const embeddings = await answerBeforeBody("/embeddings", auth(apiKey), 8 * 1024 * 1024, 0);
    expect(embeddings.status).toBe(413);
  });

  it("stays responsive while large keyless bodies are sent, and the connections are usable afterwards", async () => {
    const nested = Buffer.from(`${"[".repeat(9 * 1024 * 1024)}${"]".repeat(9 * 1024 * 1024)}`);
    const keyless = Array.from({ length: 8 }, () =>
      fetch(`${stack.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: nested,
      }),
    );
    const health = await fetch(`${origin}/healthz`);
    expect(health.status).toBe(200);
    for (const response of await Promise.all(keyless)) {
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    }
    // The same (keep-alive) connections then carry a normal request.
    const models = await fetch(`${stack.baseUrl}/models`, { headers: auth(apiKey) });
    expect(models.status).toBe(200);
  });
});

describe("the invalid-key slowdown", () => {
  it("answers an address's invalid keys with 429 past its limit, yet serves its valid keys", async () => {
    const from = "127.0.0.4";
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await send("/models", { headers: auth(unknownKey()), from })).status).toBe(401);
    }
    const refused = await send("/models", { headers: auth(unknownKey()), from });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limit_exceeded");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    // A repeated bad key is refused again without a ledger lookup, and still 429.
    const repeated = unknownKey();
    expect((await send("/models", { headers: auth(repeated), from })).status).toBe(429);
    expect((await send("/models", { headers: auth(repeated), from })).status).toBe(429);

    // A key edge knows and a key it has never seen both work from the throttled address.
    expect((await send("/models", { headers: auth(apiKey), from })).status).toBe(200);
    const fresh = (await stack.createAccount()).api_key;
    const served = await send("/chat/completions", {
      method: "POST",
      headers: { ...auth(fresh), "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
      from,
    });
    expect(served.status).toBe(200);
    // Several at once from the throttled address, valid and not: each gets its own answer.
    const mixed = await Promise.all(
      [apiKey, unknownKey(), fresh, unknownKey()].map((key) => send("/models", { headers: auth(key), from })),
    );
    expect(mixed.map((answer) => answer.status)).toEqual([200, 429, 200, 429]);
  });

  it("counts a trusted proxy's clients by X-Forwarded-For, and an untrusted peer by its own address", async () => {
    const forwardedFor = (client: string) => ({ "x-forwarded-for": client });
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const answer = await send("/models", {
        headers: { ...auth(unknownKey()), ...forwardedFor("203.0.113.7") },
        from: trustedProxy,
      });
      expect(answer.status).toBe(401);
    }
    const throttled = { ...forwardedFor("203.0.113.7") };
    expect(
      (await send("/models", { headers: { ...auth(unknownKey()), ...throttled }, from: trustedProxy })).status,
    ).toBe(429);
    // Another client behind the same proxy is not slowed down.
    const neighbour = { ...auth(unknownKey()), ...forwardedFor("203.0.113.8") };
    expect((await send("/models", { headers: neighbour, from: trustedProxy })).status).toBe(401);
    // From a peer that is not a trusted proxy the header is ignored: its own address counts.
    const forged = { ...auth(unknownKey()), ...throttled };
    expect((await send("/models", { headers: forged, from: untrustedPeer })).status).toBe(401);
  });
});

describe("generated links", () => {
  const imageRequest = (headers: Record<string, string>, from?: string) =>
    send("/images/generations", {
      method: "POST",
      headers: { ...auth(apiKey), "content-type": "application/json", ...headers },
      body: JSON.stringify({ model: "imagen-4.0-fast-generate-001", prompt: "a lighthouse" }),
      from,
    });

  it("never reflect a forged Host header", async () => {
    const answer = await imageRequest({ host: "attacker.example" });
    expect(answer.status).toBe(200);
    const url = answer.body.data[0]!.url;
    expect(url.startsWith(`${origin}/files/generated/`)).toBe(true);
    expect((await fetch(url)).status).toBe(200);
  });

  it("use a trusted proxy's X-Forwarded-Host and -Proto, and ignore them from anyone else", async () => {
    const ingress = { "x-forwarded-host": "gateway.example", "x-forwarded-proto": "https" };
    const proxied = await imageRequest(ingress, trustedProxy);
    expect(proxied.body.data[0]!.url).toMatch(/^https:\/\/gateway\.example\/files\/generated\//);
    const forged = await imageRequest({ ...ingress, host: "attacker.example" }, untrustedPeer);
    expect(forged.body.data[0]!.url.startsWith(`${origin}/files/generated/`)).toBe(true);
    // A header that is not a bare host is not used, even from the proxy.
    const odd = await imageRequest({ "x-forwarded-host": "gateway.example/evil?x=" }, trustedProxy);
    expect(odd.body.data[0]!.url.startsWith(`${origin}/files/generated/`)).toBe(true);
  });

  it("give a video_url on edge's own address whatever Host the client sends", async () => {
    const videos = videoApi(stack.baseUrl, apiKey);
    const submitted = await send("/videos/generations", {
      method: "POST",
      headers: { ...auth(apiKey), "content-type": "application/json", host: "attacker.example" },
      body: JSON.stringify({ model: "sora-2", prompt: "a paper boat", async: true }),
    });
    expect(submitted.status).toBe(200);
    await videos.finished(submitted.body.id);
    const polled = await send(`/videos/generations/${submitted.body.id}`, {
      headers: { ...auth(apiKey), host: "attacker.example" },
    });
    expect(polled.body.status).toBe("completed");
    expect(polled.body.video_url.startsWith(`${origin}/v1/videos/generations/`)).toBe(true);
  });
});

describe("a key created just after it was refused", () => {
  it("works within about a second, not after the refusal's cache time", async () => {
    const key = `gw-test-${randomUUID()}`;
    // From an address of its own: no other test's invalid keys count against it.
    const listModels = () => send("/models", { headers: { authorization: `Bearer ${key}` }, from: "127.0.0.5" });
    expect((await listModels()).status).toBe(401);
    await stack.createAccount({ group: "premium", apiKey: key });
    await eventually(async () => ((await listModels()).status === 200 ? true : undefined), 2_500, 100);
  });
});

describe("a refused request with a large body", () => {
  const bodyBytes = 1024 ** 3;

  /**
   * Writes a 1 GB chunked body over a raw socket that never stops to read the answer (as a
   * hostile client would); resolves with the answer's status line and how much went out
   * before edge closed the connection.
   */
  function refusedUpload(key: string) {
    return new Promise<{ statusLine: string; sentBytes: number }>((resolve) => {
      const url = new URL(`${stack.baseUrl}/chat/completions`);
      // From an address of its own: other tests' unknown keys must not turn the 401 into the throttle's 429.
      const socket = connect({ port: Number(url.port), host: url.hostname, localAddress: "127.0.0.6" });
      const chunk = Buffer.concat([Buffer.from("100000\r\n"), Buffer.alloc(0x100000, 0x20), Buffer.from("\r\n")]);
      let sentBytes = 0;
      let answer = "";
      socket.on("data", (data: Buffer) => {
        answer += data.toString("latin1");
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve({ statusLine: answer.split("\r\n")[0]!, sentBytes }));
      const write = () => {
        while (sentBytes < bodyBytes && !socket.destroyed) {
          sentBytes += chunk.length;
          if (!socket.write(chunk)) return void socket.once("drain", write);
        }
        socket.end("0\r\n\r\n");
      };
      socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${key}\r\n` +
          "content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
      );
      write();
    });
  }

  it.each([
    // Node read the rest of a refused body to its end to keep the connection (4 GB, 4.7 s of CPU).
    ["401 for an unknown key", 401, unknownKey],
    // Express's parser read a body past its limit to its end before answering: 1 GB, 1.3 s of CPU.
    ["413 for a body past the limit", 413, () => apiKey],
  ])("answered %s, closes the connection instead of reading the rest", async (_case, status, key) => {
    const { statusLine, sentBytes } = await refusedUpload(key());
    expect(statusLine).toBe(`HTTP/1.1 ${status} ${STATUS_CODES[status]}`);
    expect(sentBytes).toBeLessThan(bodyBytes / 4);
  });
});
