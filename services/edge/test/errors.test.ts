import { clearSimulatorRequests, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI, { type APIError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let stack: TestStack;
let defaultKey: string;
let client: OpenAI;

beforeAll(async () => {
  stack = await startTestStack();
  defaultKey = (await stack.createAccount({ group: "default" })).api_key;
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: defaultKey, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

async function post(path: string, body: string, key: string | null = defaultKey) {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
    body,
  });
  return { response, body: (await response.json()) as { error: Record<string, unknown> } };
}

const chat = (fields: Record<string, unknown>) =>
  JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], ...fields });

function expectOpenAIError(body: { error: Record<string, unknown> }) {
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(typeof body.error.message).toBe("string");
}

describe("authentication errors", () => {
  it.each([
    ["a missing key", null],
    ["an unknown key", "sk-gw-not-a-real-key"],
  ])("answers 401 invalid_api_key for %s", async (_case, key) => {
    const { response, body } = await post("/chat/completions", chat({}), key);
    expect(response.status).toBe(401);
    expectOpenAIError(body);
    expect(body.error.code).toBe("invalid_api_key");
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    expect(response.headers.get("x-should-retry")).toBe("false");
  });

  it("answers 401 for a revoked key, through the SDK", async () => {
    const account = await stack.createAccount();
    const revoked = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
    await revoked.models.list();
    const revoke = await fetch(`${stack.adminUrl}/admin/keys/${account.key_id}/revoke`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.adminToken}` },
    });
    expect(revoke.ok).toBe(true);
    await expect(revoked.models.list()).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
  });
});

describe("model errors", () => {
  it("answers 404 model_not_found for an unknown model", async () => {
    await expect(
      client.chat.completions.create({ model: "gpt-99", messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toMatchObject({ status: 404, code: "model_not_found", param: "model" });
  });

  it("answers 404 model_not_found for a model outside the key's group", async () => {
    await expect(client.models.retrieve("gpt-4o")).rejects.toMatchObject({ status: 404, code: "model_not_found" });
    await expect(
      client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toMatchObject({ status: 404, code: "model_not_found" });
  });
});

describe("invalid requests never reach the vendor", () => {
  it.each([
    ["bad JSON", "{not json", null],
    ["temperature above 2", chat({ temperature: 2.1 }), "temperature"],
    ["top_p above 1", chat({ top_p: 1.01 }), "top_p"],
    ["empty messages", chat({ messages: [] }), "messages"],
    ["an unknown role", chat({ messages: [{ role: "robot", content: "x" }] }), "messages[0].role"],
    ["a wrong type", chat({ stream: "yes" }), "stream"],
    [
      "image input to a text-only model",
      chat({
        model: "deepseek-chat",
        messages: [
          { role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] },
        ],
      }),
      "messages",
    ],
  ])("answers 400 for %s", async (_case, body, param) => {
    await clearSimulatorRequests(stack.simulatorUrl);
    const { response, body: answer } = await post("/chat/completions", body);
    expect(response.status).toBe(400);
    expectOpenAIError(answer);
    expect(answer.error.type).toBe("invalid_request_error");
    expect(answer.error.param).toBe(param);
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  });

  it("answers an OpenAI-shaped 404 for an unknown /v1 path", async () => {
    const response = await fetch(`${stack.baseUrl}/fine_tuning/jobs`, {
      headers: { authorization: `Bearer ${defaultKey}` },
    });
    expect(response.status).toBe(404);
    expectOpenAIError((await response.json()) as { error: Record<string, unknown> });
  });

  it.each(["/models/%", "/responses/%E0%A4%A", "/videos/generations/%zz"])(
    "answers 400 for a path that is not valid percent-encoding (%s)",
    async (path) => {
      const response = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${defaultKey}` } });
      expect(response.status).toBe(400);
      expectOpenAIError((await response.json()) as { error: Record<string, unknown> });
    },
  );

  it("answers an OpenAI-shaped 431 for a URL longer than the HTTP parser takes", async () => {
    const response = await fetch(`${stack.baseUrl}/models/${"m".repeat(20_000)}`, {
      headers: { authorization: `Bearer ${defaultKey}` },
    });
    expect(response.status).toBe(431);
    expectOpenAIError((await response.json()) as { error: Record<string, unknown> });
  });

  const chatTyped = (contentType: string) =>
    fetch(`${stack.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${defaultKey}`, "content-type": contentType },
      body: chat({}),
    });

  it("answers 415 for a JSON body in a charset the parser cannot read", async () => {
    const response = await chatTyped("application/json; charset=bogus");
    expect(response.status).toBe(415);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expectOpenAIError(body);
    expect(body.error.code).toBe("charset_unsupported");
  });

  it("serves a body labelled UTF-8 in any spelling of the label", async () => {
    expect((await chatTyped('application/json; charset="UTF-8"')).status).toBe(200);
  });
});

describe("JSON bodies in charsets other than UTF-8", () => {
  // In UTF-7 `+AFs-` is `[`: 100,000 levels of nesting the depth check never saw in the bytes,
  // which JSON.parse took and JSON.stringify then overflowed on (a 500 on every conversation route).
  const levels = 100_000;
  const hiddenNesting = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"metadata":{"a":${"+AFs-".repeat(levels)}${"+AF0-".repeat(levels)}}}`;
  const routes = [
    { route: "chat", path: "/chat/completions", shape: "openai" },
    { route: "Responses", path: "/responses", shape: "openai" },
    { route: "Messages", path: "/messages", shape: "anthropic" },
    { route: "Gemini", path: "/../v1beta/models/gemini-2.5-flash:generateContent", shape: "google" },
  ];

  it.each(
    routes.flatMap((route) => ["utf-7", "UTF-16", "utf-32le", "iso-8859-1"].map((charset) => ({ ...route, charset }))),
  )("answers 415 on $route for charset=$charset, in the route's own error shape", async ({ path, shape, charset }) => {
    const response = await fetch(new URL(`${stack.baseUrl}${path}`), {
      method: "POST",
      headers: {
        authorization: `Bearer ${defaultKey}`,
        "x-goog-api-key": defaultKey,
        "content-type": `application/json; charset=${charset}`,
      },
      body: hiddenNesting,
    });
    expect(response.status).toBe(415);
    const body = (await response.json()) as Record<string, Record<string, unknown>>;
    if (shape === "openai") expect(body.error!.code).toBe("charset_unsupported");
    if (shape === "anthropic") expect(body).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    if (shape === "google") expect(JSON.stringify(body.error)).toContain("CHARSET_UNSUPPORTED");
    expect(JSON.stringify(body)).toContain(charset.toLowerCase());
  });
});

// Each case uses another vendor's model: retried failures open that channel's circuit.
describe("vendor failures", () => {
  it("maps a vendor 500 to a retryable 503 without vendor details", async () => {
    const { response, body } = await post(
      "/chat/completions",
      chat({ messages: [{ role: "user", content: "[sim:status=500]" }] }),
    );
    expect(response.status).toBe(503);
    expectOpenAIError(body);
    expect(response.headers.get("x-should-retry")).toBe("true");
    expect(Number(response.headers.get("retry-after-ms"))).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toContain("simulator");
  });

  it("passes a vendor's 429 wait on as Retry-After", async () => {
    const { response } = await post(
      "/chat/completions",
      chat({ model: "deepseek-chat", messages: [{ role: "user", content: "[sim:status=429]" }] }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
  });

  it("passes the wait in Gemini's RetryInfo on as Retry-After, at most a minute, without waiting it out", async () => {
    const ask = (content: string) =>
      client.chat.completions.create({ model: "gemini-2.5-flash-lite", messages: [{ role: "user", content }] });
    const startedAt = Date.now();
    const limited = (await ask("[sim:status=429] [sim:retry_after_ms=26500]").catch((error) => error)) as APIError;
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(limited).toMatchObject({ status: 503 });
    const { headers } = limited;
    expect(headers?.get("retry-after-ms")).toBe("26500");
    expect(headers?.get("retry-after")).toBe("27");
    const daily = (await ask("[sim:status=429] [sim:retry_after_ms=86400000]").catch((error) => error)) as APIError;
    expect(daily.headers?.get("retry-after")).toBe("60");
  });

  it("ends a stream that breaks after output with an error the SDK raises", async () => {
    const stream = await client.chat.completions.create({
      model: "qwen-plus",
      messages: [{ role: "user", content: "[sim:cut_after=3]" }],
      stream: true,
    });
    const received: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? "");
      })(),
    ).rejects.toThrow();
    expect(received.join("").length).toBeGreaterThan(0);
  });
});

describe("a vendor's own refusal", () => {
  it("keeps Qwen's message when it refuses a streamed request with an event line", async () => {
    const refused = await client.chat.completions
      .create({ model: "qwen-plus", messages: [{ role: "user", content: "[sim:status=400]" }], stream: true })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      message: "Simulated bad request.",
      code: "vendor_rejected_request",
    });
  });
});
