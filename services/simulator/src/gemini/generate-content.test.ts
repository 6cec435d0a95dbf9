import { inflateSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../server.js";
import { thoughtSignature } from "./thought-signatures.js";

let simulator: Simulator;
const headers = { "x-goog-api-key": "sim-google-test-key", "content-type": "application/json" };
const weather = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } } },
};
const time = { name: "get_time" };

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(async () => {
  await fetch(`${simulator.url}/_sim/faults`, { method: "DELETE" });
  await fetch(`${simulator.url}/_sim/requests`, { method: "DELETE" });
});

// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the shape of response bodies
type Body = any;

const ask = (text: string, extra: Record<string, unknown> = {}) => ({
  contents: [{ role: "user", parts: [{ text }] }],
  ...extra,
});

function generate(body: unknown, init: RequestInit = {}, model = "gemini-2.5-flash"): Promise<Response> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return fetch(`${simulator.url}/v1beta/models/${model}:generateContent`, {
    method: "POST",
    headers,
    body: text,
    ...init,
  });
}

function stream(body: unknown, query = "?alt=sse", model = "gemini-2.5-flash"): Promise<Response> {
  return fetch(`${simulator.url}/v1beta/models/${model}:streamGenerateContent${query}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
}

/** Reads an SSE body to its end, or until the connection breaks; says which. */
async function readEvents(response: Response): Promise<{ events: Body[]; broken: boolean }> {
  const decoder = new TextDecoder();
  let text = "";
  let broken = false;
  try {
    for await (const chunk of response.body!) text += decoder.decode(chunk, { stream: true });
  } catch {
    broken = true;
  }
  const events = text
    .split("\r\n\r\n")
    .filter((frame) => frame.startsWith("data: "))
    .map((frame) => JSON.parse(frame.slice(6)));
  return { events, broken };
}

async function requests() {
  const response = await fetch(`${simulator.url}/_sim/requests`);
  return ((await response.json()) as { data: { path: string; aborted: boolean; status: number | null }[] }).data;
}

const textOf = (events: Body[]) =>
  events
    .flatMap((event) => event.candidates ?? [])
    .flatMap((candidate: Body) => candidate.content.parts ?? [])
    .map((part: Body) => part.text ?? "")
    .join("");

describe("Gemini generateContent", () => {
  it("answers in Gemini's JSON shape", async () => {
    const response = await generate(
      ask("Hello there", {
        systemInstruction: { parts: [{ text: "Be brief." }] },
        generationConfig: { candidateCount: 2 },
      }),
    );
    expect(response.status).toBe(200);
    const body: Body = await response.json();
    expect(body).toMatchObject({
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ text: expect.stringMatching(/^Simulated answer from gemini-2.5-flash: Hello there/) }],
          },
          finishReason: "STOP",
          index: 0,
        },
        { finishReason: "STOP", index: 1 },
      ],
      modelVersion: "gemini-2.5-flash",
      responseId: expect.any(String),
    });
    const { promptTokenCount, candidatesTokenCount, thoughtsTokenCount, totalTokenCount } = body.usageMetadata;
    expect(candidatesTokenCount).toBe(48);
    // gemini-2.5-flash thinks unasked, as Google's recorded answers show; thoughts count apart.
    expect(thoughtsTokenCount).toBeGreaterThan(0);
    expect(totalTokenCount).toBe(promptTokenCount + candidatesTokenCount + thoughtsTokenCount);
  });

  it("accepts the key as a query parameter, and snake_case fields", async () => {
    const response = await fetch(`${simulator.url}/v1beta/models/gemini-2.5-pro:generateContent?key=abc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }], generation_config: { max_output_tokens: 3 } }),
    });
    const body: Body = await response.json();
    expect(body.candidates[0]).toMatchObject({ finishReason: "MAX_TOKENS" });
    expect(body.usageMetadata.candidatesTokenCount).toBe(3);
  });

  it("refuses a request without a key", async () => {
    const response = await generate(ask("hi"), { headers: { "content-type": "application/json" } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: 401, message: expect.stringContaining("API Key"), status: "UNAUTHENTICATED" },
    });
  });

  it.each([
    ["not json", "{", /Invalid JSON payload/],
    ["no contents", {}, /contents is not specified/],
    ["empty parts", { contents: [{ role: "user", parts: [] }] }, /must not be empty/],
    ["a bad role", { contents: [{ role: "assistant", parts: [{ text: "x" }] }] }, /valid role: user, model/],
    ["an empty part", { contents: [{ role: "user", parts: [{}] }] }, /oneof field 'data'/],
    ["empty text", ask(""), /empty text parameter/],
    ["too many candidates", ask("x", { generationConfig: { candidateCount: 9 } }), /candidateCount/],
    [
      "an OBJECT without properties",
      ask("x", { tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "object", properties: {} } }] }] }),
      /non-empty for OBJECT/,
    ],
    [
      "an unknown allowed function",
      ask("x", {
        tools: [{ functionDeclarations: [weather] }],
        toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["nope"] } },
      }),
      /allowed_function_names/,
    ],
  ])("refuses %s with INVALID_ARGUMENT", async (_name, body, message) => {
    const response = await generate(body);
    expect(response.status).toBe(400);
    const error = ((await response.json()) as Body).error;
    expect(error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(error.message).toMatch(message);
  });

  it("calls the declared functions, all of them or the one allowed", async () => {
    const tools = [{ functionDeclarations: [weather, time] }];
    const parallel: Body = await (await generate(ask("Weather and time?", { tools }))).json();
    expect(parallel.candidates[0]).toMatchObject({
      finishReason: "STOP",
      content: {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "sample-city", days: 1 } } },
          { functionCall: { name: "get_time", args: {} } },
        ],
      },
    });
    const forced = ask("Time?", {
      tools,
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_time"] } },
    });
    const named: Body = await (await generate(forced)).json();
    expect(named.candidates[0].content.parts).toEqual([{ functionCall: { name: "get_time", args: {} } }]);
    const none = ask("Hi", { tools, toolConfig: { functionCallingConfig: { mode: "NONE" } } });
    expect(((await (await generate(none)).json()) as Body).candidates[0].content.parts[0].text).toMatch(/Simulated/);
  });

  it("answers a function response with text mentioning the result", async () => {
    const body: Body = await (
      await generate({
        contents: [
          { role: "user", parts: [{ text: "Weather in Paris?" }] },
          { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }] },
          {
            role: "user",
            parts: [{ functionResponse: { name: "get_weather", response: { result: "21C and sunny" } } }],
          },
        ],
        tools: [{ functionDeclarations: [weather] }],
      })
    ).json();
    expect(body.candidates[0].content.parts[0].text).toMatch(/^Received tool result: 21C and sunny/);
  });

  it("counts inline images as prompt tokens", async () => {
    const image = { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } };
    const body: Body = await (
      await generate({ contents: [{ role: "user", parts: [{ text: "What?" }, image] }] })
    ).json();
    expect(body.usageMetadata.promptTokenCount).toBeGreaterThanOrEqual(85);
  });
});

describe("Gemini streamGenerateContent", () => {
  it("streams text in pieces over SSE, with finish and usage on the last event and no [DONE]", async () => {
    const response = await stream(ask("Tell me a story"));
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const { events, broken } = await readEvents(response);
    expect(broken).toBe(false);
    expect(events.length).toBe(6);
    expect(textOf(events)).toMatch(/^Simulated answer from gemini-2.5-flash: Tell me a story/);
    expect(events.slice(0, -1).every((event) => !event.usageMetadata && !event.candidates[0].finishReason)).toBe(true);
    expect(events.at(-1)).toMatchObject({
      candidates: [{ finishReason: "STOP", index: 0 }],
      usageMetadata: { candidatesTokenCount: 24 },
      modelVersion: "gemini-2.5-flash",
    });
  });

  it("sends each function call whole", async () => {
    const { events } = await readEvents(
      await stream(ask("Weather and time?", { tools: [{ functionDeclarations: [weather, time] }] })),
    );
    expect(events.map((event) => event.candidates[0].content.parts)).toEqual([
      [{ functionCall: { name: "get_weather", args: { city: "sample-city", days: 1 } } }],
      [{ functionCall: { name: "get_time", args: {} } }],
    ]);
    expect(events[1].candidates[0].finishReason).toBe("STOP");
  });

  it("interleaves candidates", async () => {
    const { events } = await readEvents(
      await stream(ask("Hi [sim:tokens=8]", { generationConfig: { candidateCount: 2 } })),
    );
    expect(events.map((event) => event.candidates.map((candidate: Body) => candidate.index))).toEqual([
      [0, 1],
      [0, 1],
    ]);
  });

  it("streams one JSON array without alt=sse", async () => {
    const response = await stream(ask("Hi [sim:tokens=6]"), "");
    const body: Body = await response.json();
    expect(body).toHaveLength(2);
    expect(body[1]).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: { candidatesTokenCount: 6 },
    });
  });

  it("severs after cut_after pieces, with no finish", async () => {
    const { events, broken } = await readEvents(await stream(ask("Long [sim:cut_after=2] [sim:tokens=40]")));
    expect(broken).toBe(true);
    expect(events).toHaveLength(2);
    expect(events.every((event) => !event.usageMetadata && !event.candidates[0].finishReason)).toBe(true);
    const [record] = await requests();
    expect(record).toMatchObject({ path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent", aborted: false });
  });

  it("records a request the client left as aborted", async () => {
    const controller = new AbortController();
    const response = await fetch(`${simulator.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      method: "POST",
      headers,
      body: JSON.stringify(ask("slow [sim:tokens=50] [sim:token_latency_ms=50]")),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(async () => (await requests())[0]?.aborted, { timeout: 3_000 }).toBe(true);
  });
});

describe("Gemini structured output", () => {
  const schema = {
    type: "object",
    properties: { colour: { type: "string", enum: ["red", "blue"] }, shades: { type: "integer", minimum: 2 } },
    required: ["colour", "shades"],
  };

  it("answers JSON satisfying responseJsonSchema, whole and streamed", async () => {
    const generationConfig = { responseMimeType: "application/json", responseJsonSchema: schema };
    const body: Body = await (await generate(ask("Colour?", { generationConfig }))).json();
    const text = body.candidates[0].content.parts[0].text;
    expect(JSON.parse(text)).toMatchObject({ colour: "red" });
    expect(JSON.parse(text).shades).toBeGreaterThanOrEqual(2);
    const { events } = await readEvents(await stream(ask("Colour?", { generationConfig })));
    expect(events.length).toBeGreaterThan(1);
    expect(textOf(events)).toBe(text);
  });

  it("reads the OpenAPI-style responseSchema, and answers a JSON object without a schema", async () => {
    const responseSchema = { type: "OBJECT", properties: { ok: { type: "BOOLEAN" } }, required: ["ok"] };
    const typed: Body = await (
      await generate(ask("Ok?", { generation_config: { response_mime_type: "application/json", responseSchema } }))
    ).json();
    expect(JSON.parse(typed.candidates[0].content.parts[0].text)).toEqual({ ok: true });
    const plain: Body = await (
      await generate(ask("Ok?", { generationConfig: { responseMimeType: "application/json" } }))
    ).json();
    expect(JSON.parse(plain.candidates[0].content.parts[0].text)).toEqual({ answer: expect.any(String) });
  });
});

describe("Gemini faults", () => {
  it.each([
    [429, "RESOURCE_EXHAUSTED"],
    [500, "INTERNAL"],
    [503, "UNAVAILABLE"],
  ])("answers [sim:status=%i] with Gemini's error shape", async (status, name) => {
    const response = await generate(ask(`hi [sim:status=${status}]`));
    expect(response.status).toBe(status);
    expect(((await response.json()) as Body).error).toMatchObject({ code: status, status: name });
  });

  it("asks for its wait in a RetryInfo detail on 429, as Google does", async () => {
    const retryInfo = async (text: string) => {
      const { error } = (await (await generate(ask(text))).json()) as Body;
      return error.details.find((detail: Body) => detail["@type"] === "type.googleapis.com/google.rpc.RetryInfo");
    };
    expect(await retryInfo("hi [sim:status=429]")).toEqual(expect.objectContaining({ retryDelay: "1s" }));
    expect(await retryInfo("hi [sim:status=429] [sim:retry_after_ms=26500]")).toMatchObject({ retryDelay: "26.5s" });
  });

  it("uses a queued fault for the matching model and key", async () => {
    await fetch(`${simulator.url}/_sim/faults`, {
      method: "POST",
      body: JSON.stringify({ status: 503, model: "gemini-2.5-flash", api_key: "sim-google-test-key" }),
    });
    expect((await generate(ask("hi"), {}, "gemini-2.5-pro")).status).toBe(200);
    expect((await generate(ask("hi"))).status).toBe(503);
    expect((await generate(ask("hi"))).status).toBe(200);
  });

  it("delays and cuts a JSON answer in half", async () => {
    const started = Date.now();
    const response = await generate(ask("hi [sim:delay_ms=150] [sim:cut_after=1]"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await expect(response.json()).rejects.toThrow();
  });

  it("leaves out usage with no_usage", async () => {
    const body: Body = await (await generate(ask("hi [sim:no_usage]"))).json();
    expect(body).not.toHaveProperty("usageMetadata");
  });
});

describe("simulated images", () => {
  it("serves a real PNG of the named colour", async () => {
    const response = await fetch(`${simulator.url}/_sim/images/red.png`);
    expect(response.headers.get("content-type")).toBe("image/png");
    const png = Buffer.from(await response.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect(png.readUInt32BE(16)).toBe(16);
    const idatLength = png.readUInt32BE(33);
    const pixels = inflateSync(png.subarray(41, 41 + idatLength));
    expect([...pixels.subarray(0, 4)]).toEqual([0, 255, 0, 0]);
    expect(Buffer.from(await (await fetch(`${simulator.url}/_sim/images/red.png`)).arrayBuffer())).toEqual(png);
    expect(await requests()).toEqual([]);
  });

  it("has no image of an unknown colour", async () => {
    expect((await fetch(`${simulator.url}/_sim/images/mauve.png`)).status).toBe(404);
  });
});

describe("Gemini 3 thought signatures", () => {
  const tools = [{ functionDeclarations: [weather, time] }];
  const question = { role: "user", parts: [{ text: "Weather and time?" }] };
  const results = {
    role: "user",
    parts: [
      { functionResponse: { name: "get_weather", response: { result: "sunny" } } },
      { functionResponse: { name: "get_time", response: { result: "14:05" } } },
    ],
  };
  const loop = (modelTurn: Body) => ({ contents: [question, modelTurn, results], tools });
  const refusal = async (response: Response) => {
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as Body;
    expect(error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    return error.message as string;
  };

  it("signs only the first of parallel calls, and a text answer's part", async () => {
    const calls: Body = await (await generate({ contents: [question], tools }, {}, "gemini-3-flash")).json();
    const parts = calls.candidates[0].content.parts;
    expect(parts[0].thoughtSignature).toBe(thoughtSignature("get_weather"));
    // Base64 with both + and / and padding: a carrier must restore every character.
    expect(parts[0].thoughtSignature).toMatch(/^\+\+\+\+\/\/\/\/.*==$/);
    expect(parts[1]).toEqual({ functionCall: { name: "get_time", args: {} } });
    const text: Body = await (await generate(ask("Hi"), {}, "gemini-3.1-pro")).json();
    expect(text.candidates[0].content.parts).toEqual([
      { text: expect.stringMatching(/^Simulated answer/), thoughtSignature: thoughtSignature("") },
    ]);
    const older: Body = await (await generate({ contents: [question], tools })).json();
    expect(JSON.stringify(older)).not.toContain("thoughtSignature");
  });

  it("streams a call's signature on its part, and ends in an event of its own with an empty text part, signed after a text", async () => {
    const { events } = await readEvents(await stream({ contents: [question], tools }, "?alt=sse", "gemini-3-flash"));
    expect(events.map((event) => event.candidates[0].content.parts)).toEqual([
      [
        {
          functionCall: { name: "get_weather", args: { city: "sample-city", days: 1 } },
          thoughtSignature: thoughtSignature("get_weather"),
        },
      ],
      [{ functionCall: { name: "get_time", args: {} } }],
      [{ text: "" }],
    ]);
    expect(events.map((event) => event.candidates[0].finishReason)).toEqual([undefined, undefined, "STOP"]);
    const text = await readEvents(await stream(ask("Hi [sim:tokens=6]"), "?alt=sse", "gemini-3-flash"));
    expect(text.events.at(-1).candidates[0]).toMatchObject({
      content: { parts: [{ text: "", thoughtSignature: thoughtSignature("") }] },
      finishReason: "STOP",
    });
  });

  it("notes an answer's function calls in finishMessage, as Gemini does when the calls end it", async () => {
    const unary = (await (await generate({ contents: [question], tools }, {}, "gemini-3-flash")).json()) as Body;
    expect(unary.candidates[0].finishMessage).toBe("Model generated function call(s).");
    const streamed = await readEvents(await stream({ contents: [question], tools }, "?alt=sse", "gemini-2.5-flash"));
    expect(streamed.events.at(-1).candidates[0].finishMessage).toBe("Model generated function call(s).");
  });

  it("takes a tool loop that sends the signature back, in either base64 alphabet", async () => {
    const signature = thoughtSignature("get_weather");
    for (const sent of [signature, signature.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")]) {
      const body = loop({
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: sent },
          { functionCall: { name: "get_time", args: {} } },
        ],
      });
      const response = await generate(body, {}, "gemini-3-flash");
      expect(response.status).toBe(200);
      expect(((await response.json()) as Body).candidates[0].content.parts[0].text).toMatch(/^Received tool result/);
    }
  });

  it("refuses with Google's 400 a call of the current turn without its signature, or with another's", async () => {
    const unsigned = loop({ role: "model", parts: [{ functionCall: { name: "get_weather", args: {} } }] });
    expect(await refusal(await generate(unsigned, {}, "gemini-3-flash"))).toBe(
      "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
    );
    const moved = loop({
      role: "model",
      parts: [{ functionCall: { name: "get_weather", args: {} }, thoughtSignature: thoughtSignature("get_time") }],
    });
    expect(await refusal(await generate(moved, {}, "gemini-3-flash"))).toBe("Corrupted thought signature.");
    const mangled = loop({
      role: "model",
      parts: [{ functionCall: { name: "get_weather", args: {} }, thoughtSignature: "not base64!" }],
    });
    expect(await refusal(await generate(mangled, {}, "gemini-3-flash"))).toMatch(/Base64 decoding failed/);
    // Older models take it, as Gemini 2.5 does.
    expect((await generate(unsigned)).status).toBe(200);
  });

  it("checks only the current turn, and takes Google's documented stand-in", async () => {
    const earlierTurn = {
      contents: [
        question,
        { role: "model", parts: [{ functionCall: { name: "get_weather", args: {} } }] },
        results,
        { role: "model", parts: [{ text: "Sunny, 14:05." }] },
        { role: "user", parts: [{ text: "Thanks" }] },
      ],
    };
    expect((await generate(earlierTurn, {}, "gemini-3-flash")).status).toBe(200);
    const standIn = loop({
      role: "model",
      parts: [
        { functionCall: { name: "get_weather", args: {} }, thought_signature: "skip_thought_signature_validator" },
      ],
    });
    expect((await generate(standIn, {}, "gemini-3-flash")).status).toBe(200);
  });
});

describe("Gemini 3.x thinking levels", () => {
  const withThinking = (thinkingConfig: Record<string, unknown>) => ask("Hi", { generationConfig: { thinkingConfig } });
  const status = async (thinkingConfig: Record<string, unknown>, model: string) =>
    (await generate(withThinking(thinkingConfig), {}, model)).status;

  it("takes the levels each model has: minimal on Flash and Flash-Lite, from low on Pro", async () => {
    expect(await status({ thinkingLevel: "minimal" }, "gemini-3.6-flash")).toBe(200);
    expect(await status({ thinkingLevel: "minimal" }, "gemini-3.5-flash-lite")).toBe(200);
    expect(await status({ thinkingLevel: "low" }, "gemini-3.1-pro-preview")).toBe(200);
    expect(await status({ thinkingLevel: "minimal" }, "gemini-3.1-pro-preview")).toBe(400);
  });

  it("refuses a level on models before Gemini 3, and a level with a budget", async () => {
    expect(await status({ thinkingLevel: "low" }, "gemini-2.5-flash")).toBe(400);
    const both = await generate(withThinking({ thinkingLevel: "low", thinkingBudget: 1024 }), {}, "gemini-3.6-flash");
    expect(both.status).toBe(400);
    expect(((await both.json()) as Body).error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
  });
});
