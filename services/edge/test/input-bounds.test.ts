import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { RouterServiceClient } from "@gateway/proto/router/v1/router";
import {
  clearSimulatorRequests,
  simulatorRequests,
  startTestStack,
  type TestStack,
  testClientOptions,
} from "@gateway/stack";
import { credentials, type ServiceError } from "@grpc/grpc-js";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bulkyPng, wav } from "./media-fixtures.js";

// Bad input is a 400 naming the parameter, never a 5xx, and never reaches a vendor: integers
// beyond int32, over-long model names, JSON nested too deep, NUL characters bound for
// Postgres, truncated WAV headers, too many images. A huge model name stalls no other tenant.

const maxRequestImageBytes = 10_000;
let stack: TestStack;
let key: string;
let premiumKey: string;
// An image host the router may fetch from, counting what it is asked for.
let imageHost: Server;
let imageOrigin: string;
let imageHits: string[] = [];

beforeAll(async () => {
  imageHost = createServer((request, response) => {
    imageHits.push(request.url ?? "");
    response.writeHead(200, { "content-type": "image/png" }).end(bulkyPng(16, 16, 6_000));
  });
  await new Promise<void>((resolve) => imageHost.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(imageHost.address() as AddressInfo).port}`;
  imageOrigin = `http://${host}`;
  stack = await startTestStack({
    env: { IMAGE_FETCH_ALLOWED_PRIVATE_HOSTS: host, IMAGE_FETCH_MAX_REQUEST_BYTES: String(maxRequestImageBytes) },
    // Edge refuses 150,000 parts by default (conversation-size-stalls.isolated.test.ts); here router's handling of them is tested.
    serviceEnv: { edge: { REQUEST_MAX_PARTS: "200000" } },
  });
  key = (await stack.createAccount()).api_key;
  premiumKey = (await stack.createAccount({ group: "premium" })).api_key;
});
afterAll(async () => {
  await stack?.teardown();
  imageHost?.closeAllConnections();
  await new Promise((resolve) => imageHost?.close(resolve));
});

interface ErrorAnswer {
  status: number;
  error: { message: string; type: string; param: string | null; code: string | null };
}

async function send(path: string, body: string | FormData, apiKey = key): Promise<ErrorAnswer> {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(typeof body === "string" && { "content-type": "application/json" }),
    },
    body,
  });
  const answer = (await response.json()) as { error: ErrorAnswer["error"] };
  return { status: response.status, error: answer.error };
}

/** Sends a body that must be refused with a 400 naming `param`, and checks no vendor was called. */
async function expectRefused(path: string, body: string | FormData, param: string | null, apiKey = key) {
  await clearSimulatorRequests(stack.simulatorUrl);
  const answer = await send(path, body, apiKey);
  expect(answer.status).toBe(400);
  expect(answer.error.type).toBe("invalid_request_error");
  expect(answer.error.param).toBe(param);
  expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  return answer;
}

const user = [{ role: "user", content: "hi" }];
const chat = (fields: Record<string, unknown>) => JSON.stringify({ model: "gpt-4o-mini", messages: user, ...fields });
const tooBig = 2 ** 31;
const longModel = "m".repeat(257);

function form(fields: Record<string, string>, file?: { name: string; bytes: Buffer; field?: string }): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  if (file) data.append(file.field ?? "file", new Blob([file.bytes]), file.name);
  return data;
}

describe("integers beyond int32", () => {
  it.each([
    ["/chat/completions", chat({ max_tokens: tooBig }), "max_tokens"],
    ["/chat/completions", chat({ max_completion_tokens: tooBig }), "max_completion_tokens"],
    ["/chat/completions", chat({ n: tooBig }), "n"],
    ["/completions", JSON.stringify({ model: "gpt-4o-mini", prompt: "hi", max_tokens: tooBig }), "max_tokens"],
    ["/embeddings", JSON.stringify({ model: "text-embedding-3-small", input: "hi", dimensions: tooBig }), "dimensions"],
    ["/embeddings", JSON.stringify({ model: "text-embedding-3-small", input: [tooBig] }), "input[0]"],
    [
      "/responses",
      JSON.stringify({ model: "gpt-4o-mini", input: "hi", max_output_tokens: tooBig }),
      "max_output_tokens",
    ],
    [
      "/images/generations",
      JSON.stringify({ model: "imagen-4.0-fast-generate-001", prompt: "a boat", n: tooBig }),
      "n",
    ],
  ])("%s refuses an integer beyond int32 (case %#)", async (path, body, param) => {
    await expectRefused(path, body, param);
  });
});

describe("model names longer than 256 characters", () => {
  it.each([
    ["/chat/completions", chat({ model: longModel })],
    ["/completions", JSON.stringify({ model: longModel, prompt: "hi" })],
    ["/embeddings", JSON.stringify({ model: longModel, input: "hi" })],
    ["/images/generations", JSON.stringify({ model: longModel, prompt: "a boat" })],
    ["/responses", JSON.stringify({ model: longModel, input: "hi" })],
    ["/videos/generations", JSON.stringify({ model: longModel, prompt: "a boat", async: true })],
  ])("%s answers 400 naming model", async (path, body) => {
    await expectRefused(path, body, "model", premiumKey);
  });

  it("/audio/transcriptions and /images/edits answer 400 naming model", async () => {
    await expectRefused("/audio/transcriptions", form({ model: longModel }, { name: "a.wav", bytes: wav(1) }), "model");
    const image = { name: "a.png", bytes: bulkyPng(64, 64, 200), field: "image" };
    await expectRefused("/images/edits", form({ model: longModel, prompt: "a hat" }, image), "model");
  });
});

describe("a 300 KB model name", () => {
  const hugeModel = "x".repeat(300_000);

  it("is a short 400 at the edge, and another tenant's request meanwhile completes", async () => {
    const other = new OpenAI({ baseURL: stack.baseUrl, apiKey: premiumKey, maxRetries: 0 });
    const [refused, served] = await Promise.all([
      expectRefused("/chat/completions", chat({ model: hugeModel }), "model"),
      other.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }),
    ]);
    expect(refused.error.message.length).toBeLessThan(500);
    expect(served.choices[0]?.message.content).toBeTruthy();
  });

  it("sent straight to the router, fails with a short status that leaves the shared channel serving", async () => {
    const router = new RouterServiceClient(
      `127.0.0.1:${stack.processes.router.ports.grpc}`,
      credentials.createInsecure(),
      testClientOptions("edge"),
    );
    const caller = {
      requestId: "req_huge_model",
      accountId: "",
      keyId: "",
      modelGroup: "default",
      multiplierBasisPoints: 10_000,
    };
    try {
      const failure = await new Promise<ServiceError>((resolve, reject) =>
        router.createChatCompletion(
          {
            caller,
            model: hugeModel,
            messages: [],
            stop: [],
            tools: [],
            anthropicBeta: [],
            anthropicExtraJson: "",
            stream: false,
            includeUsage: false,
            extraJson: "",
          },
          (error) => (error ? resolve(error) : reject(new Error("a 300 KB model name was served"))),
        ),
      );
      expect(failure.details).toContain("does not exist");
      expect(Buffer.byteLength(failure.details)).toBeLessThanOrEqual(512);
      // The same channel answers the next call at once.
      const list = await new Promise<{ models: unknown[] }>((resolve, reject) =>
        router.listModels({ modelGroup: "default" }, (error, answer) => (error ? reject(error) : resolve(answer))),
      );
      expect(list.models.length).toBeGreaterThan(0);
      // The router logged the failed call with its request id.
      const logged = stack.processes.router.output.filter((line) => line.includes("gRPC call failed"));
      expect(logged.some((line) => line.includes('"request_id":"req_huge_model"'))).toBe(true);
    } finally {
      router.close();
    }
  });
});

describe("JSON nested deeper than 64 levels", () => {
  /** An object `levels` deep: nested(1) is {}. */
  const nested = (levels: number): unknown => (levels <= 1 ? {} : { a: nested(levels - 1) });
  const schemaTool = (parameters: unknown) => [{ type: "function", function: { name: "f", parameters } }];

  it.each([
    ["metadata", chat({ metadata: nested(70) })],
    ["tools", chat({ tools: schemaTool(nested(70)) })],
    [
      "response_format",
      chat({ response_format: { type: "json_schema", json_schema: { name: "s", schema: nested(70) } } }),
    ],
    ["logit_bias", chat({ logit_bias: nested(70) })],
  ])("answers 400 for %s on chat", async (param, body) => {
    const answer = await expectRefused("/chat/completions", body, param);
    expect(answer.error.code).toBe("json_too_deep");
  });

  it("answers 400 for Responses text.format and for a deep top-level array", async () => {
    const format = { type: "json_schema", name: "s", schema: nested(70) };
    await expectRefused("/responses", JSON.stringify({ model: "gpt-4o-mini", input: "hi", text: { format } }), "text");
    await expectRefused("/chat/completions", `${"[".repeat(100)}${"]".repeat(100)}`, null);
  });

  it("serves a body exactly 64 levels deep", async () => {
    // The body is level 1 and metadata level 2, so metadata may hold 63 levels.
    const answer = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: chat({ metadata: nested(63) }),
    });
    expect(answer.status).toBe(200);
  });
});

describe("NUL characters bound for Postgres", () => {
  it.each([
    ["prompt", { model: "sora-2", prompt: "a boat\u0000", async: true }],
    ["callback_url", { model: "sora-2", prompt: "a boat", async: true, callback_url: "https://example.com/\u0000" }],
  ])("a video %s with NUL answers 400", async (param, body) => {
    await expectRefused("/videos/generations", JSON.stringify(body), param, premiumKey);
  });
});

describe("a WAV whose fmt chunk is cut off", () => {
  it("answers 400 naming file", async () => {
    const cut = wav(1).subarray(0, 30);
    await expectRefused("/audio/transcriptions", form({ model: "whisper-1" }, { name: "cut.wav", bytes: cut }), "file");
  });
});

describe("images per request", () => {
  const withImages = (urls: string[]) =>
    chat({
      model: "gemini-2.5-flash",
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "what?" }, ...urls.map((url) => ({ type: "image_url", image_url: { url } }))],
        },
      ],
    });
  const urls = (count: number) => Array.from({ length: count }, (_, index) => `${imageOrigin}/${index}.png`);

  it("refuses more than the model's limit before fetching any image or calling the vendor", async () => {
    imageHits = [];
    const answer = await expectRefused("/chat/completions", withImages(urls(17)), "messages");
    expect(answer.error.code).toBe("too_many_images");
    expect(imageHits).toEqual([]);
  });

  it("refuses as many input images on Responses", async () => {
    imageHits = [];
    const content = urls(17).map((url) => ({ type: "input_image", image_url: url }));
    const body = JSON.stringify({ model: "gemini-2.5-flash", input: [{ role: "user", content }] });
    await expectRefused("/responses", body, "messages");
    expect(imageHits).toEqual([]);
  });

  it("caps the bytes one request's downloads bring in together", async () => {
    // Each image is 6,000 bytes: one fits the 10,000-byte request budget, two do not.
    const served = await send("/chat/completions", withImages(urls(1)));
    expect(served.status).toBe(200);
    const answer = await expectRefused("/chat/completions", withImages(urls(2)), "messages");
    expect(answer.error.message).toContain(`larger than ${maxRequestImageBytes} bytes`);
  });
});

describe("a message of 150,000 content parts", () => {
  const parts = Array.from({ length: 150_000 }, () => ({ type: "text", text: "a" }));

  // Router once merged turns and gathered system parts with push(...parts), which overflows the
  // stack past about 120,000 arguments: a RangeError and a 500.
  it.each([
    [
      "merged into the user turn before it, for Claude",
      "claude-sonnet-4-6",
      [...user, { role: "user", content: parts }],
    ],
    ["as the system prompt, for Gemini", "gemini-2.5-flash", [{ role: "system", content: parts }, ...user]],
  ])("is served %s", async (_case, model, messages) => {
    const answer = await send("/chat/completions", chat({ model, messages }));
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(200);
  });
});
