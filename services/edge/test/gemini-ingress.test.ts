import {
  eventually,
  queryRows,
  type SimulatedRequest,
  simulatorRequests,
  startTestStack,
  type TestStack,
  usageRecordsOf,
} from "@gateway/stack";
import {
  ApiError,
  type Content,
  FunctionCallingConfigMode,
  type GenerateContentResponse,
  GoogleGenAI,
  HarmBlockThreshold,
  HarmCategory,
  ThinkingLevel,
  Type,
} from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The Gemini ingress (/v1beta) through the running stack, driven by Google's own SDK pointed at
// edge: every chat model answers generateContent, every embedding model embedContent.

let stack: TestStack;
let apiKey: string;
let ai: GoogleGenAI;
let edgeOrigin: string;

beforeAll(async () => {
  stack = await startTestStack();
  apiKey = (await stack.createAccount({ group: "premium" })).api_key;
  edgeOrigin = new URL(stack.baseUrl).origin;
  ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: edgeOrigin, apiVersion: "v1beta" } });
});
afterAll(async () => {
  await stack?.teardown();
});

/** The simulator requests whose body mentions `marker`. */
async function upstreamWith(marker: string): Promise<SimulatedRequest[]> {
  const requests = await simulatorRequests(stack.simulatorUrl);
  return requests.filter((request) => JSON.stringify(request.body).includes(marker));
}

const requestIdOf = (response: GenerateContentResponse) => response.sdkHttpResponse?.headers?.["x-request-id"] ?? "";

/** The request's usage records once ledger stored one: exactly one means billed once. */
async function billedOnce(requestId: string) {
  expect(requestId).not.toBe("");
  for (let attempt = 0; attempt < 100; attempt++) {
    const records = await usageRecordsOf(stack.databaseUrl, requestId);
    if (records.length > 0) {
      expect(records).toHaveLength(1);
      return records[0]!;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no usage record for ${requestId}`);
}

const weatherTool = {
  functionDeclarations: [
    {
      name: "get_weather",
      description: "Weather for a city",
      parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ["city"] },
    },
  ],
};

describe("generateContent", () => {
  it("passes a Gemini model's request through natively and answers with usageMetadata", async () => {
    const response = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "ingress native hello",
      config: {
        systemInstruction: "Be brief.",
        temperature: 0.4,
        maxOutputTokens: 60,
        stopSequences: ["never-appears"],
        topK: 20,
        thinkingConfig: { thinkingBudget: 512 },
        safetySettings: [{ category: HarmCategory.HARM_CATEGORY_HARASSMENT, threshold: HarmBlockThreshold.BLOCK_NONE }],
      },
    });
    expect(response.text).toMatch(/^Simulated answer from gemini-2\.5-flash: ingress native hello/);
    expect(response.candidates![0]!.finishReason).toBe("STOP");
    const usage = response.usageMetadata!;
    expect(usage.promptTokenCount).toBeGreaterThan(0);
    expect(usage.candidatesTokenCount).toBe(24);
    // The budget is the canonical thinking setting: the model thinks, and its thoughts are counted
    // but, without includeThoughts, not shown.
    expect(usage.thoughtsTokenCount).toBeGreaterThan(0);
    expect(usage.totalTokenCount).toBe(
      usage.promptTokenCount! + usage.candidatesTokenCount! + usage.thoughtsTokenCount!,
    );
    expect(response.candidates![0]!.content!.parts!.some((part) => part.thought)).toBe(false);

    const [upstream] = await upstreamWith("ingress native hello");
    expect(upstream!.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(upstream!.body).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "ingress native hello" }] }],
      generationConfig: {
        temperature: 0.4,
        maxOutputTokens: 60,
        stopSequences: ["never-appears"],
        topK: 20,
        thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
      },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
    });
    const record = await billedOnce(requestIdOf(response));
    expect(record).toMatchObject({
      model: "gemini-2.5-flash",
      prompt_tokens: usage.promptTokenCount,
      // Thoughts are output, billed as Gemini bills them.
      completion_tokens: 24 + usage.thoughtsTokenCount!,
      estimated: false,
    });
    expect(Number(record.cost_micros)).toBeGreaterThan(0);
    // The request log keeps the conversation as for every other ingress.
    // Its entry travels apart from the usage event, so it may land after the usage record.
    const log = await eventually(async () => {
      const rows = await queryRows<{ request_body: string; response_body: string }>(
        stack.databaseUrl,
        "SELECT request_body, response_body FROM ledger.request_logs WHERE request_id = $1",
        [requestIdOf(response)],
      );
      return rows[0];
    });
    expect(log!.request_body).toContain("ingress native hello");
    expect(log!.response_body).toContain(response.text!);
  });

  it("translates for a non-Gemini model and bills it like any chat", async () => {
    const response = await ai.models.generateContent({
      model: "gpt-4o-mini",
      contents: [
        { role: "user", parts: [{ text: "ingress openai first" }] },
        { role: "model", parts: [{ text: "First answer." }] },
        { role: "user", parts: [{ text: "ingress openai second" }] },
      ],
      config: { systemInstruction: "Answer in English.", temperature: 1.5, topP: 0.9, topK: 5, candidateCount: 2 },
    });
    expect(response.candidates).toHaveLength(2);
    expect(response.text).toMatch(/^Simulated answer from gpt-4o-mini: ingress openai second/);
    expect(response.modelVersion).toBe("gpt-4o-mini");

    const [upstream] = await upstreamWith("ingress openai second");
    expect(upstream!.path).toBe("/v1/chat/completions");
    expect(upstream!.body).toMatchObject({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: [{ type: "text", text: "Answer in English." }] },
        { role: "user", content: [{ type: "text", text: "ingress openai first" }] },
        { role: "assistant", content: "First answer." },
        { role: "user", content: [{ type: "text", text: "ingress openai second" }] },
      ],
      temperature: 1.5,
      top_p: 0.9,
      n: 2,
    });
    // Gemini's own settings stay with Gemini: OpenAI refuses fields it does not know.
    expect(upstream!.body).not.toHaveProperty("gemini");
    expect(upstream!.body).not.toHaveProperty("top_k");
    const record = await billedOnce(requestIdOf(response));
    expect(record).toMatchObject({ prompt_tokens: response.usageMetadata!.promptTokenCount, estimated: false });
  });

  it("reads images given by URL through the router's SSRF-safe fetcher for Gemini", async () => {
    const response = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: [
        {
          role: "user",
          parts: [
            { text: "ingress picture" },
            { fileData: { mimeType: "image/png", fileUri: `${stack.simulatorUrl}/_sim/images/blue.png` } },
          ],
        },
      ],
    });
    expect(response.text).toContain("ingress picture");
    const [upstream] = await upstreamWith("ingress picture");
    const parts = (upstream!.body as { contents: Content[] }).contents[0]!.parts!;
    expect(parts[1]!.inlineData).toMatchObject({ mimeType: "image/png" });
    expect(parts[1]!.inlineData!.data!.length).toBeGreaterThan(20);
  });

  it("returns a reasoning model's thinking as thought parts when includeThoughts asks for them", async () => {
    const contents = "ingress think aloud";
    const withThoughts = await ai.models.generateContent({
      model: "deepseek-reasoner",
      contents,
      config: { thinkingConfig: { includeThoughts: true } },
    });
    const parts = withThoughts.candidates![0]!.content!.parts!;
    expect(parts[0]).toMatchObject({ thought: true, text: expect.stringContaining("ingress think aloud") });
    expect(parts[1]!.thought).toBeUndefined();
    expect(withThoughts.text).toMatch(/^Simulated answer from deepseek-v4-flash/);
    expect(withThoughts.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
    const usage = withThoughts.usageMetadata!;
    expect(usage.totalTokenCount).toBe(
      usage.promptTokenCount! + usage.candidatesTokenCount! + usage.thoughtsTokenCount!,
    );

    const without = await ai.models.generateContent({ model: "deepseek-reasoner", contents });
    expect(without.candidates![0]!.content!.parts!.some((part) => part.thought)).toBe(false);
  });

  it("gives Claude a thinking budget as extended thinking and a thinking level as a reasoning effort", async () => {
    const config = { maxOutputTokens: 4096, topK: 7 };
    await ai.models.generateContent({
      model: "claude-haiku-4-5",
      contents: "ingress claude budget",
      config: { ...config, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
    });
    const [budgeted] = await upstreamWith("ingress claude budget");
    expect(budgeted!.body).toMatchObject({ top_k: 7, thinking: { type: "enabled", budget_tokens: 2048 } });

    await ai.models.generateContent({
      model: "claude-haiku-4-5",
      contents: "ingress claude level",
      config: { ...config, thinkingConfig: { thinkingLevel: ThinkingLevel.LOW } },
    });
    const [levelled] = await upstreamWith("ingress claude level");
    expect(levelled!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 2048 } });
  });

  it("raises a thinking budget below Claude's minimum of 1024 instead of failing the request", async () => {
    const answer = await ai.models.generateContent({
      model: "claude-haiku-4-5",
      contents: "ingress claude small budget",
      config: { maxOutputTokens: 300, thinkingConfig: { thinkingBudget: 256, includeThoughts: true } },
    });
    expect(answer.candidates![0]!.content!.parts!.some((part) => part.thought)).toBe(true);
    const [sent] = await upstreamWith("ingress claude small budget");
    expect(sent!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 1024 }, max_tokens: 1324 });
  });

  it("asks for JSON with a response schema and gets JSON that fits it", async () => {
    const response = await ai.models.generateContent({
      model: "claude-haiku-4-5",
      contents: "ingress structured",
      config: {
        responseMimeType: "application/json",
        responseSchema: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ["city"] },
      },
    });
    expect(JSON.parse(response.text!)).toEqual({ city: expect.any(String) });
  });
});

describe("snake_case requests, as Google's REST examples write them", () => {
  it("reads system_instruction, inline_data and generation_config like their camelCase names", async () => {
    const response = await fetch(`${edgeOrigin}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": apiKey },
      body: JSON.stringify({
        system_instruction: { parts: [{ text: "Be brief." }] },
        contents: [{ parts: [{ text: "ingress snake case" }] }],
        generation_config: { max_output_tokens: 40, stop_sequences: ["zzz"] },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as GenerateContentResponse;
    expect(body.candidates![0]!.content!.parts![0]!.text).toMatch(/ingress snake case/);
    const [upstream] = await upstreamWith("ingress snake case");
    expect(upstream!.body).toMatchObject({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: { maxOutputTokens: 40, stopSequences: ["zzz"] },
    });
  });
});

describe("streamGenerateContent", () => {
  for (const model of ["gemini-2.5-flash", "deepseek-v4-flash", "claude-haiku-4-5"]) {
    it(`streams ${model} as server-sent events ending with finishReason and usage`, async () => {
      const stream = await ai.models.generateContentStream({ model, contents: `ingress stream ${model}` });
      const chunks: GenerateContentResponse[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.length).toBeGreaterThan(2);
      const text = chunks.map((chunk) => chunk.text ?? "").join("");
      expect(text).toMatch(new RegExp(`^Simulated answer from ${model}: ingress stream`));
      const last = chunks.at(-1)!;
      expect(last.candidates![0]!.finishReason).toBe("STOP");
      expect(last.usageMetadata!.candidatesTokenCount).toBe(24);
      expect(chunks.slice(0, -1).every((chunk) => chunk.usageMetadata === undefined)).toBe(true);
      // gemini-2.5-flash thinks unasked, and completion_tokens includes its thoughts.
      const thoughts = last.usageMetadata!.thoughtsTokenCount ?? 0;
      const record = await billedOnce(requestIdOf(chunks[0]!));
      expect(record).toMatchObject({ stream: true, completion_tokens: 24 + thoughts, estimated: false });
    });
  }

  it("streams one JSON array without alt=sse, the key in the query", async () => {
    const response = await fetch(`${edgeOrigin}/v1beta/models/gpt-4o-mini:streamGenerateContent?key=${apiKey}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "ingress array" }] }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const events = (await response.json()) as GenerateContentResponse[];
    const text = events.map((event) => event.candidates?.[0]?.content?.parts?.[0]?.text ?? "").join("");
    expect(text).toMatch(/^Simulated answer from gpt-4o-mini: ingress array/);
    expect(events.at(-1)!.usageMetadata!.candidatesTokenCount).toBe(24);
  });
});

describe("function calling", () => {
  for (const model of ["gemini-2.5-flash", "gpt-4o-mini", "claude-haiku-4-5"]) {
    it(`runs a call and its answer round trip on ${model}`, async () => {
      const user: Content = { role: "user", parts: [{ text: `ingress weather in ${model}` }] };
      const first = await ai.models.generateContent({ model, contents: [user], config: { tools: [weatherTool] } });
      const calls = first.functionCalls!;
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ name: "get_weather", args: { city: expect.any(String) } });
      const modelTurn = first.candidates![0]!.content!;
      const answer: Content = {
        role: "user",
        parts: [{ functionResponse: { id: calls[0]!.id, name: "get_weather", response: { forecast: "sunny" } } }],
      };
      const second = await ai.models.generateContent({
        model,
        contents: [user, modelTurn, answer],
        config: { tools: [weatherTool] },
      });
      expect(second.functionCalls).toBeUndefined();
      expect(second.text).toMatch(/^Received tool result:.*sunny/);
    });
  }

  it("streams a function call whole, with the finish reason", async () => {
    const stream = await ai.models.generateContentStream({
      model: "gpt-4o-mini",
      contents: "ingress streamed call",
      config: {
        tools: [weatherTool],
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ["get_weather"] },
        },
      },
    });
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const calls = chunks.flatMap((chunk) => chunk.functionCalls ?? []);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: "get_weather", args: { city: expect.any(String) } });
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe("STOP");
    const [upstream] = await upstreamWith("ingress streamed call");
    expect(upstream!.body).toMatchObject({ tool_choice: { type: "function", function: { name: "get_weather" } } });
  });
});

describe("countTokens", () => {
  it("is the vendor's exact count for a Gemini model, what generateContent then bills", async () => {
    const contents = "ingress count these words please";
    const counted = await ai.models.countTokens({ model: "gemini-2.5-flash", contents });
    const answered = await ai.models.generateContent({ model: "gemini-2.5-flash", contents });
    expect(counted.totalTokens).toBe(answered.usageMetadata!.promptTokenCount);
    const [upstream] = (await upstreamWith(contents)).filter((request) => request.path.endsWith(":countTokens"));
    expect(upstream!.body).toMatchObject({ generateContentRequest: { model: "models/gemini-2.5-flash" } });
  });

  it("is Claude's own count for a Claude model, through the RPC Anthropic's count_tokens uses", async () => {
    const contents = "ingress count for claude";
    const counted = await ai.models.countTokens({ model: "claude-haiku-4-5", contents });
    const answered = await ai.models.generateContent({ model: "claude-haiku-4-5", contents });
    expect(counted.totalTokens).toBe(answered.usageMetadata!.promptTokenCount);
    const upstream = (await upstreamWith(contents)).filter((request) => request.path === "/v1/messages/count_tokens");
    expect(upstream).toHaveLength(1);
  });

  it("is the gateway's estimate for other models, never below what the vendor bills", async () => {
    const contents = "ingress estimate these words please";
    const counted = await ai.models.countTokens({ model: "gpt-4o-mini", contents });
    const answered = await ai.models.generateContent({ model: "gpt-4o-mini", contents });
    expect(counted.totalTokens).toBeGreaterThanOrEqual(answered.usageMetadata!.promptTokenCount!);
    expect(await upstreamWith("ingress estimate these words please")).toHaveLength(1);
  });
});

describe("embedContent", () => {
  for (const [model, size] of [
    ["gemini-embedding-001", 3072],
    ["text-embedding-3-small", 1536],
  ] as const) {
    it(`embeds with ${model}`, async () => {
      const full = await ai.models.embedContent({ model, contents: ["ingress embed one", "ingress embed two"] });
      expect(full.embeddings).toHaveLength(2);
      expect(full.embeddings![0]!.values).toHaveLength(size);
      const short = await ai.models.embedContent({
        model,
        contents: "ingress embed short",
        config: { outputDimensionality: 256 },
      });
      expect(short.embeddings![0]!.values).toHaveLength(256);
    });
  }

  it("answers the single embedContent method", async () => {
    const response = await fetch(`${edgeOrigin}/v1beta/models/text-embedding-3-small:embedContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": apiKey },
      body: JSON.stringify({ content: { parts: [{ text: "ingress single embed" }] }, taskType: "RETRIEVAL_QUERY" }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { embedding: { values: number[] } };
    expect(body.embedding.values).toHaveLength(1536);
  });
});

describe("models", () => {
  it("lists the key's chat and embedding models with their limits and methods", async () => {
    const pager = await ai.models.list({ config: { pageSize: 5 } });
    const names: string[] = [];
    for await (const model of pager) names.push(model.name!);
    expect(names).toContain("models/gemini-2.5-flash");
    expect(names).toContain("models/gpt-4o-mini");
    expect(names).toContain("models/gemini-embedding-001");
    expect(names).not.toContain("models/grok-imagine-image");
    expect(new Set(names).size).toBe(names.length);

    const model = await ai.models.get({ model: "gemini-2.5-flash" });
    expect(model).toMatchObject({ name: "models/gemini-2.5-flash", inputTokenLimit: 1048576 });
    expect(model.outputTokenLimit).toBeGreaterThan(0);
    expect(model.supportedActions).toEqual(["generateContent", "streamGenerateContent", "countTokens"]);
  });
});

describe("the v1 path @google/genai 3 calls by default", () => {
  it("answers generateContent and lists models beside OpenAI's /v1", async () => {
    const v1 = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: edgeOrigin } });
    const response = await v1.models.generateContent({ model: "qwen-plus", contents: "ingress on v1" });
    expect(response.text).toMatch(/^Simulated answer from qwen-plus: ingress on v1/);
    // The lineup is longer than one page now: every page is read.
    const names: string[] = [];
    for await (const listed of await v1.models.list()) names.push(listed.name!);
    expect(names).toContain("models/qwen-plus");
    const model = await v1.models.get({ model: "gemini-embedding-001" });
    expect(model.supportedActions).toEqual(["embedContent", "batchEmbedContents"]);

    const openai = await fetch(`${stack.baseUrl}/models`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(((await openai.json()) as { object: string }).object).toBe("list");
    const wrongKey = await v1.models
      .get({ model: "gpt-4o-mini", config: { httpOptions: { headers: { "x-goog-api-key": "sk-wrong" } } } })
      .catch((error: unknown) => error as ApiError);
    expect((wrongKey as ApiError).status).toBe(401);
    expect(JSON.parse((wrongKey as ApiError).message).error.status).toBe("UNAUTHENTICATED");
  });
});

describe("errors in Google's shape", () => {
  const googleError = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ApiError);
    return { status: (error as ApiError).status, body: JSON.parse((error as ApiError).message) };
  };

  it("refuses a bad key, an unknown model and bad input before any vendor", async () => {
    const stranger = new GoogleGenAI({
      apiKey: "sk-not-a-key",
      httpOptions: { baseUrl: edgeOrigin, apiVersion: "v1beta" },
    });
    const badKey = await googleError(stranger.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }));
    expect(badKey.status).toBe(401);
    expect(badKey.body.error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
    expect(badKey.body.error.details[0]).toMatchObject({ reason: "API_KEY_INVALID" });

    const unknown = await googleError(ai.models.generateContent({ model: "gemini-0-nonexistent", contents: "hi" }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });

    const badInput = await googleError(
      ai.models.generateContent({ model: "gemini-2.5-flash", contents: "ingress too hot", config: { temperature: 3 } }),
    );
    expect(badInput.status).toBe(400);
    expect(badInput.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(badInput.body.error.details[1].fieldViolations[0].field).toBe("generationConfig.temperature");
    expect(await upstreamWith("ingress too hot")).toEqual([]);
  });

  it("answers raw bad requests with 4xx in Google's shape", async () => {
    const post = (path: string, body: string, headers: Record<string, string> = { "x-goog-api-key": apiKey }) =>
      fetch(`${edgeOrigin}/v1beta/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    const cases: [Response, number][] = [
      [await post("models/gemini-2.5-flash:generateContent", "{not json"), 400],
      [await post("models/gemini-2.5-flash:generateContent", JSON.stringify({ contents: [] })), 400],
      [await post("models/gemini-2.5-flash:generateContent", JSON.stringify({ contents: [{ parts: [{}] }] })), 400],
      [
        await post("models/gemini-2.5-flash:generateContent", JSON.stringify({ cachedContent: "x", contents: [] })),
        400,
      ],
      [await post("models/gemini-2.5-flash:summarize", "{}"), 404],
      [await post("models/gemini-2.5-flash:generateContent", "{}", {}), 401],
      [
        await post(
          "models/text-embedding-3-small:generateContent",
          JSON.stringify({ contents: [{ parts: [{ text: "x" }] }] }),
        ),
        400,
      ],
      [
        await post(
          "models/gemini-2.5-flash:generateContent",
          JSON.stringify({ contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] }] }),
        ),
        400,
      ],
    ];
    for (const [response, status] of cases) {
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: { code: number; status: string; message: string } };
      expect(body.error.code).toBe(status);
      expect(body.error.status).toMatch(/^[A-Z_]+$/);
      expect(body.error.message.length).toBeGreaterThan(0);
    }
  });
});
