import type { ChatRequest, Message } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { imageFromDataUrl } from "../../vendor-http/fetch-image.js";
import { type ImageLoader, toGeminiRequest, toGeminiSchema } from "./to-gemini-request.js";

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  caller: undefined,
  model: "gemini-2.5-flash",
  anthropicBeta: [],
  anthropicExtraJson: "",
  messages: [{ role: "user", text: "hi", parts: [], toolCalls: [] }],
  tools: [],
  stop: [],
  stream: false,
  includeUsage: false,
  extraJson: "",
  ...overrides,
});

const message = (role: string, text: string, extra: Partial<Message> = {}): Message => ({
  role,
  text,
  parts: [],
  toolCalls: [],
  ...extra,
});

const dataUrlsOnly: ImageLoader = async (url) => imageFromDataUrl(url, { maxBytes: 1024 });
const build = (overrides: Partial<ChatRequest> = {}, loader = dataUrlsOnly) =>
  toGeminiRequest(request(overrides), loader);

const weather = {
  name: "get_weather",
  description: "Weather for a city",
  parametersJson: JSON.stringify({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
};
const time = { name: "get_time", parametersJson: JSON.stringify({ type: "object", properties: {} }) };

describe("canonical request to a Gemini generateContent body", () => {
  it("sends a plain question as one user turn and nothing else", async () => {
    expect(await build()).toEqual({ contents: [{ role: "user", parts: [{ text: "hi" }] }] });
  });

  it("makes leading system messages systemInstruction, keeps later ones in place and names assistant turns model", async () => {
    const body = await build({
      messages: [
        message("system", "Be brief."),
        message("user", "Hello"),
        message("assistant", "Hi! How can I help?"),
        message("developer", "Answer in French."),
        message("user", "What is 2+2?"),
      ],
    });
    expect(body).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [
        { role: "user", parts: [{ text: "Hello" }] },
        { role: "model", parts: [{ text: "Hi! How can I help?" }] },
        { role: "user", parts: [{ text: "Answer in French." }, { text: "What is 2+2?" }] },
      ],
    });
  });

  it("inlines a data-URL image next to the text and leaves out empty text", async () => {
    const body = await build({
      messages: [
        {
          role: "user",
          parts: [{ text: "What is this?" }, { text: "" }, { imageUrl: { url: "data:image/png;base64,iVBORw0KGgo=" } }],
          toolCalls: [],
        },
      ],
    });
    expect(body.contents).toEqual([
      {
        role: "user",
        parts: [{ text: "What is this?" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }],
      },
    ]);
  });

  it("loads each distinct http image once through the loader", async () => {
    const asked: string[] = [];
    const loader: ImageLoader = async (url) => {
      asked.push(url);
      return { mimeType: "image/jpeg", data: "AAAA" };
    };
    const image = { imageUrl: { url: "https://example.com/cat.jpg" } };
    const body = await build(
      {
        messages: [
          { role: "user", parts: [image], toolCalls: [] },
          { role: "user", parts: [{ text: "again" }, image], toolCalls: [] },
        ],
      },
      loader,
    );
    expect(asked).toEqual(["https://example.com/cat.jpg"]);
    expect(body.contents[1]!.parts[1]).toEqual({ inlineData: { mimeType: "image/jpeg", data: "AAAA" } });
  });

  it("fails the whole request when an image cannot be loaded", async () => {
    const failing: ImageLoader = async () => {
      throw new Error("nope");
    };
    await expect(
      build(
        { messages: [{ role: "user", parts: [{ imageUrl: { url: "https://x/y.png" } }], toolCalls: [] }] },
        failing,
      ),
    ).rejects.toThrow("nope");
  });

  it("declares tools as one functionDeclarations list in Gemini's Schema dialect", async () => {
    const strict = {
      name: "lookup",
      parametersJson: JSON.stringify({
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: {
          id: { type: ["string", "null"], description: "the id" },
          kind: { const: "user" },
          tags: { type: "array", items: { type: "string", additionalProperties: false } },
        },
        required: ["id"],
        additionalProperties: false,
      }),
      strict: true,
    };
    const body = await build({ tools: [weather, time, strict] });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Weather for a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
          // No properties: Gemini refuses an empty OBJECT, so no parameters at all.
          { name: "get_time" },
          {
            name: "lookup",
            parameters: {
              type: "object",
              properties: {
                id: { type: "string", nullable: true, description: "the id" },
                kind: { enum: ["user"] },
                tags: { type: "array", items: { type: "string" } },
              },
              required: ["id"],
            },
          },
        ],
      },
    ]);
    expect(body).not.toHaveProperty("toolConfig");
  });

  it.each([
    [{ mode: "auto" }, { mode: "AUTO" }],
    [{ mode: "none" }, { mode: "NONE" }],
    [{ mode: "required" }, { mode: "ANY" }],
    [
      { mode: "function", functionName: "get_time" },
      { mode: "ANY", allowedFunctionNames: ["get_time"] },
    ],
  ])("maps tool_choice %j to functionCallingConfig %j", async (toolChoice, functionCallingConfig) => {
    const body = await build({ tools: [weather, time], toolChoice });
    expect(body.toolConfig).toEqual({ functionCallingConfig });
  });

  it("replays a parallel tool loop: functionCall parts, then one user turn of functionResponse parts", async () => {
    const body = await build({
      messages: [
        message("user", "Weather and time in Paris?"),
        {
          role: "assistant",
          parts: [],
          toolCalls: [
            { id: "call_0", name: "get_weather", arguments: '{"city":"Paris"}' },
            { id: "call_1", name: "get_time", arguments: "" },
          ],
        },
        message("tool", '{"temp":21,"sky":"clear"}', { toolCallId: "call_0" }),
        message("tool", "14:05", { toolCallId: "call_1" }),
        message("assistant", "It is 21° and clear; the time is 14:05."),
        message("user", "And in Rome?"),
        {
          role: "assistant",
          parts: [],
          toolCalls: [{ id: "call_0", name: "get_time", arguments: "{}" }],
        },
        message("tool", "[1,2]", { toolCallId: "call_0" }),
      ],
      tools: [weather, time],
    });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "Weather and time in Paris?" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { name: "get_time", args: {} } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { temp: 21, sky: "clear" } } },
          { functionResponse: { name: "get_time", response: { result: "14:05" } } },
        ],
      },
      { role: "model", parts: [{ text: "It is 21° and clear; the time is 14:05." }] },
      { role: "user", parts: [{ text: "And in Rome?" }] },
      { role: "model", parts: [{ functionCall: { name: "get_time", args: {} } }] },
      // A reused id names the latest call with it; non-object JSON is wrapped.
      { role: "user", parts: [{ functionResponse: { name: "get_time", response: { result: [1, 2] } } }] },
    ]);
  });

  it("sends Gemini's thoughtSignatures back on the functionCall and the last text part they came with", async () => {
    const body = await build({
      messages: [
        message("user", "Weather and time in Paris?"),
        {
          role: "assistant",
          parts: [{ text: "Let me look." }, { text: "Both at once:" }],
          thoughtSignature: "sigText",
          toolCalls: [
            { id: "call_0", name: "get_weather", arguments: '{"city":"Paris"}', thoughtSignature: "sigCall" },
            { id: "call_1", name: "get_time", arguments: "{}" },
          ],
        },
        message("tool", "sunny", { toolCallId: "call_0" }),
        message("tool", "14:05", { toolCallId: "call_1" }),
      ],
      tools: [weather, time],
    });
    expect(body.contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "Let me look." },
        { text: "Both at once:", thoughtSignature: "sigText" },
        { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sigCall" },
        // Only the first of parallel calls is signed; the others go back as they came, without one.
        { functionCall: { name: "get_time", args: {} } },
      ],
    });
  });

  it("refuses a tool result that answers no earlier call, and arguments that are no object", async () => {
    await expect(build({ messages: [message("tool", "x", { toolCallId: "call_9" })] })).rejects.toMatchObject({
      httpStatus: 400,
      param: "messages",
    });
    const badCall = {
      role: "assistant",
      parts: [],
      toolCalls: [{ id: "c", name: "f", arguments: "[1]" }],
    };
    await expect(build({ messages: [badCall] })).rejects.toMatchObject({ httpStatus: 400 });
  });

  it("maps sampling parameters to generationConfig", async () => {
    const body = await build({
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 100,
      stop: ["END"],
      n: 2,
      seed: 7,
      presencePenalty: 0,
      frequencyPenalty: 0.5,
    });
    expect(body.generationConfig).toEqual({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 100,
      stopSequences: ["END"],
      candidateCount: 2,
      seed: 7,
      frequencyPenalty: 0.5,
    });
  });

  it("asks for JSON, with the schema as responseJsonSchema for json_schema", async () => {
    expect((await build({ responseFormat: { type: "json_object" } })).generationConfig).toEqual({
      responseMimeType: "application/json",
    });
    const schema = { type: "object", properties: { answer: { type: "string" } }, additionalProperties: false };
    const body = await build({
      responseFormat: { type: "json_schema", jsonSchemaJson: JSON.stringify({ name: "reply", strict: true, schema }) },
    });
    expect(body.generationConfig).toEqual({ responseMimeType: "application/json", responseJsonSchema: schema });
    expect((await build({ responseFormat: { type: "text" } })).generationConfig).toBeUndefined();
  });

  it("keeps only Gemini's Schema keywords, recursively", () => {
    expect(toGeminiSchema({ anyOf: [{ type: "string", $id: "x" }, { type: "null" }], examples: [] })).toEqual({
      anyOf: [{ type: "string" }, { type: "null" }],
    });
  });

  it("maps top_k and reasoning_effort to topK and a thinking budget that shows its thoughts", async () => {
    const body = await toGeminiRequest(request({ topK: 7, reasoningEffort: "medium" }), dataUrlsOnly);
    expect(body.generationConfig).toMatchObject({
      topK: 7,
      thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
    });
  });

  it("gives Gemini 3.x a thinking level in place of a budget, the nearest the model has", async () => {
    const flash = ["minimal", "low", "medium", "high"];
    const pro = ["low", "medium", "high"];
    const levelOf = async (overrides: Partial<ChatRequest>, levels: string[]) =>
      (await toGeminiRequest(request(overrides), dataUrlsOnly, levels)).generationConfig?.thinkingConfig;
    expect(await levelOf({ reasoningEffort: "medium" }, flash)).toEqual({
      thinkingLevel: "medium",
      includeThoughts: true,
    });
    expect(await levelOf({ reasoningEffort: "xhigh" }, flash)).toMatchObject({ thinkingLevel: "high" });
    expect(await levelOf({ thinking: { type: "enabled", budgetTokens: 2000 } }, flash)).toMatchObject({
      thinkingLevel: "low",
    });
    // Off is the least level: Flash's minimal, and Pro's low since Pro cannot stop thinking.
    expect(await levelOf({ thinking: { type: "disabled" } }, flash)).toMatchObject({ thinkingLevel: "minimal" });
    expect(await levelOf({ reasoningEffort: "none" }, pro)).toMatchObject({ thinkingLevel: "low" });
    expect(await levelOf({}, flash)).toBeUndefined();
  });

  it("sends text documents as text and PDFs as inline data, leaving Claude's thinking out", async () => {
    const body = await toGeminiRequest(
      request({
        messages: [
          {
            role: "user",
            parts: [
              { document: { sourceType: "text", data: "words" } },
              { document: { sourceType: "base64", mediaType: "application/pdf", data: "JVBERi0=" } },
              { thinking: { thinking: "t", signature: "s" } },
            ],
            toolCalls: [],
          },
        ],
      }),
      dataUrlsOnly,
    );
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "words" }, { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } }] },
    ]);
  });
});

describe("a request of very many parts", () => {
  it("sends a system message of 150,000 parts without overflowing the stack", async () => {
    const parts = Array.from({ length: 150_000 }, () => ({ text: "a" }));
    const body = await build({ messages: [{ role: "system", parts, toolCalls: [] }, message("user", "hi")] });
    expect(body.systemInstruction?.parts).toHaveLength(150_000);
  });
});
