import {
  clearSimulatorRequests,
  type SimulatedRequest,
  simulatorRequests,
  startTestStack,
  type TestStack,
  usageRecordOf,
} from "@gateway/stack";
import OpenAI from "openai";
import type { Completion } from "openai/resources";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let stack: TestStack;
let client: OpenAI;
let apiKey: string;

const usageRecord = (requestId: string) => usageRecordOf(stack.databaseUrl, requestId);

/** The vendor requests whose body mentions `marker`. */
async function upstream(marker: string): Promise<SimulatedRequest[]> {
  return (await simulatorRequests(stack.simulatorUrl)).filter((request) =>
    JSON.stringify(request.body).includes(marker),
  );
}

/** A raw call, for what the SDK would reshape (float vectors) or cannot send (malformed bodies). */
async function post(path: string, body: unknown) {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    // biome-ignore lint/suspicious/noExplicitAny: assertions check the shape
    body: (await response.json()) as any,
    requestId: response.headers.get("x-request-id")!,
  };
}

const decodeFloats = (text: string) => {
  const bytes = Buffer.from(text, "base64");
  return Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
};
const norm = (values: number[]) => Math.hypot(...values);

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium" });
  apiKey = account.api_key;
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

describe("legacy completions through the running stack", () => {
  it("answers a plain prompt through the chat path, 16 tokens by default, and bills it", async () => {
    const completion = await client.completions.create({ model: "gpt-4o-mini", prompt: "plain prompt one" });
    expect(completion.object).toBe("text_completion");
    expect(completion.id).toMatch(/^cmpl-/);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]).toMatchObject({ index: 0, logprobs: null, finish_reason: "length" });
    expect(completion.choices[0]!.text).toContain("plain prompt one");
    expect(completion.usage!.completion_tokens).toBe(16);
    const [vendor] = await upstream("plain prompt one");
    expect(vendor!.path).toBe("/v1/chat/completions");
    expect(vendor!.body).toMatchObject({
      messages: [{ role: "user", content: "plain prompt one" }],
      max_completion_tokens: 16,
    });
    const record = await usageRecord(completion._request_id!);
    expect(record).toMatchObject({
      endpoint: "/v1/completions",
      prompt_tokens: completion.usage!.prompt_tokens,
      completion_tokens: 16,
      estimated: false,
      outcome: "ok",
    });
    expect(Number(record.cost_micros)).toBeGreaterThan(0);
  });

  it("gives k×n choices for k prompts, numbered prompt by prompt, billed as one request", async () => {
    const completion = await client.completions.create({
      model: "deepseek-chat",
      prompt: ["first array prompt", "second array prompt"],
      n: 2,
      max_tokens: 50,
    });
    expect(completion.choices.map((choice) => choice.index)).toEqual([0, 1, 2, 3]);
    expect(completion.choices[1]!.text).toContain("first array prompt");
    expect(completion.choices[3]!.text).toContain("second array prompt");
    expect(completion.choices.every((choice) => choice.finish_reason === "stop")).toBe(true);
    expect(await upstream("array prompt")).toHaveLength(2);
    const record = await usageRecord(completion._request_id!);
    expect(record).toMatchObject({
      prompt_tokens: completion.usage!.prompt_tokens,
      completion_tokens: completion.usage!.completion_tokens,
    });
    expect(completion.usage!.prompt_tokens).toBe(2 * Math.ceil("first array prompt".length / 4));
  });

  it("echoes the prompt in front of the answer", async () => {
    const completion = await client.completions.create({ model: "claude-haiku-4-5", prompt: "Echo me:", echo: true });
    expect(completion.choices[0]!.text.startsWith("Echo me:")).toBe(true);
    expect(completion.choices[0]!.text.length).toBeGreaterThan("Echo me:".length);
  });

  it("streams text_completion chunks, ends with the usage chunk when asked, and bills the stream", async () => {
    const { data: stream, response } = await client.completions
      .create({
        model: "gemini-2.5-flash",
        prompt: ["stream one", "stream two"],
        max_tokens: 30,
        stream: true,
        stream_options: { include_usage: true },
        echo: true,
      })
      .withResponse();
    const chunks: Completion[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === "text_completion")).toBe(true);
    const text = (index: number) =>
      chunks
        .flatMap((chunk) => chunk.choices.filter((choice) => choice.index === index).map((choice) => choice.text))
        .join("");
    expect(text(0).startsWith("stream one")).toBe(true);
    expect(text(1).startsWith("stream two")).toBe(true);
    const finishes = chunks.flatMap((chunk) => chunk.choices.filter((choice) => choice.finish_reason));
    expect(finishes.map((choice) => choice.index).sort()).toEqual([0, 1]);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    const record = await usageRecord(response.headers.get("x-request-id")!);
    expect(record).toMatchObject({
      stream: true,
      endpoint: "/v1/completions",
      prompt_tokens: last.usage!.prompt_tokens,
      completion_tokens: last.usage!.completion_tokens,
    });
  });

  it("refuses what it cannot honour with a 400 naming the parameter, before any vendor call", async () => {
    await clearSimulatorRequests(stack.simulatorUrl);
    const cases: Array<[body: Record<string, unknown>, param: string]> = [
      [{ model: "gpt-4o-mini", prompt: "x", suffix: "tail" }, "suffix"],
      [{ model: "gpt-4o-mini", prompt: [1, 2, 3] }, "prompt"],
      [{ model: "gpt-4o-mini", prompt: "x", logprobs: 3 }, "logprobs"],
      [{ model: "gpt-4o-mini", prompt: "x", temperature: 5 }, "temperature"],
      [{ model: "gpt-4o-mini", prompt: [] }, "prompt"],
      [{ model: "text-embedding-3-small", prompt: "x" }, "model"],
      [{ model: "gpt-4o-mini", prompt: "x", max_tokens: 10_000_000 }, "max_tokens"],
    ];
    for (const [body, param] of cases) {
      const { status, body: answer } = await post("/completions", body);
      expect([status, answer.error.param], JSON.stringify(body)).toEqual([400, param]);
      expect(answer.error).toMatchObject({ type: "invalid_request_error", message: expect.any(String) });
    }
    await expect(
      client.completions.create({ model: "gpt-4o-mini", prompt: "x", suffix: "tail" }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  });
});

describe("embeddings through the running stack", () => {
  it("embeds a string as floats; the SDK's default base64 decodes to the same values", async () => {
    const raw = await post("/embeddings", {
      model: "text-embedding-3-small",
      input: "embed me",
      encoding_format: "float",
    });
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ object: "list", model: "text-embedding-3-small" });
    const vector: number[] = raw.body.data[0].embedding;
    expect(vector).toHaveLength(1536);
    expect(norm(vector)).toBeCloseTo(1, 4);
    const viaSdk = await client.embeddings.create({ model: "text-embedding-3-small", input: "embed me" });
    expect(viaSdk.data[0]!.embedding).toEqual(vector);
    const record = await usageRecord(raw.requestId);
    expect(record).toMatchObject({
      endpoint: "/v1/embeddings",
      prompt_tokens: raw.body.usage.prompt_tokens,
      completion_tokens: 0,
      estimated: false,
    });
    expect(raw.body.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    expect(Number(record.cost_micros)).toBeGreaterThan(0);
  });

  it("embeds an array in order and returns base64 that decodes to the float result", async () => {
    const input = ["array input one", "array input two"];
    const floats = await client.embeddings.create({ model: "text-embedding-3-small", input, encoding_format: "float" });
    expect(floats.data.map((item) => item.index)).toEqual([0, 1]);
    expect(floats.data[0]!.embedding).not.toEqual(floats.data[1]!.embedding);
    const encoded = await client.embeddings.create({
      model: "text-embedding-3-small",
      input,
      encoding_format: "base64",
    });
    for (const [index, item] of encoded.data.entries()) {
      expect(typeof item.embedding).toBe("string");
      expect(decodeFloats(item.embedding as unknown as string)).toEqual(floats.data[index]!.embedding);
    }
    expect(floats.usage).toEqual({ prompt_tokens: 8, total_tokens: 8 });
  });

  it("honours dimensions where the model allows them, and takes token ids", async () => {
    const short = await client.embeddings.create({ model: "text-embedding-3-large", input: "short", dimensions: 256 });
    expect(short.data[0]!.embedding).toHaveLength(256);
    expect(norm(short.data[0]!.embedding)).toBeCloseTo(1, 4);
    const tokens = await client.embeddings.create({ model: "text-embedding-3-small", input: [[11, 12, 13], [14]] });
    expect(tokens.data).toHaveLength(2);
    expect(tokens.usage.prompt_tokens).toBe(4);
  });

  it("serves Gemini's embedding model through batchEmbedContents, billed on an estimate", async () => {
    const result = await client.embeddings.create({
      model: "gemini-embedding-001",
      input: ["gemini embed one", "gemini embed two"],
      dimensions: 768,
    });
    expect(result.model).toBe("gemini-embedding-001");
    expect(result.data.map((item) => item.embedding.length)).toEqual([768, 768]);
    const [vendor] = await upstream("gemini embed one");
    expect(vendor!.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(vendor!.headers["x-goog-api-key"]).toBeDefined();
    expect((vendor!.body!.requests as unknown[])[0]).toEqual({
      model: "models/gemini-embedding-001",
      content: { parts: [{ text: "gemini embed one" }] },
      outputDimensionality: 768,
    });
    const record = await usageRecord(result._request_id!);
    // The bytes bound: 16 bytes less the two spaces before words, for each input.
    expect(record).toMatchObject({ estimated: true, prompt_tokens: 28, endpoint: "/v1/embeddings" });
    expect(result.usage.prompt_tokens).toBe(28);
  });

  it("serves Qwen's text-embedding-v3 through DashScope's compatible mode", async () => {
    const result = await client.embeddings.create({ model: "text-embedding-v3", input: "qwen embed" });
    expect(result.data[0]!.embedding).toHaveLength(1024);
    const [vendor] = await upstream("qwen embed");
    expect(vendor!.path).toBe("/v1/embeddings");
    expect(vendor!.body).toMatchObject({ model: "text-embedding-v3", input: ["qwen embed"], encoding_format: "float" });
    expect((await usageRecord(result._request_id!)).prompt_tokens).toBe(result.usage.prompt_tokens);
  });

  it("refuses bad input with a 400 naming the parameter, before any vendor call", async () => {
    await clearSimulatorRequests(stack.simulatorUrl);
    const cases: Array<[body: Record<string, unknown>, param: string]> = [
      [{ model: "text-embedding-v3", input: "x", dimensions: 256 }, "dimensions"],
      [{ model: "text-embedding-3-small", input: "x", dimensions: 5000 }, "dimensions"],
      [{ model: "gemini-embedding-001", input: [1, 2, 3] }, "input"],
      [{ model: "text-embedding-3-small", input: "" }, "input"],
      [{ model: "text-embedding-3-small", input: [] }, "input"],
      [{ model: "text-embedding-3-small", input: Array(2049).fill("a") }, "input"],
      [{ model: "text-embedding-3-small", input: "x", encoding_format: "hex" }, "encoding_format"],
      [{ model: "gpt-4o-mini", input: "x" }, "model"],
    ];
    for (const [body, param] of cases) {
      const { status, body: answer } = await post("/embeddings", body);
      expect([status, answer.error.param], JSON.stringify(body).slice(0, 80)).toEqual([400, param]);
    }
    await expect(
      client.embeddings.create({ model: "text-embedding-v3", input: "x", dimensions: 256 }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  });
});

describe("capabilities refused on purpose", () => {
  it("answers fine-tuning, files, organization and billing paths with an OpenAI 404, after auth", async () => {
    const error = await client.files.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("unsupported_endpoint");
    for (const [method, path] of [
      ["POST", "/fine_tuning/jobs"],
      ["DELETE", "/organization/users/u1"],
      ["GET", "/dashboard/billing/usage"],
      ["POST", "/threads/t1/runs"],
      ["GET", "/vector_stores"],
    ]) {
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({
        error: {
          message: expect.stringContaining("does not offer"),
          type: "invalid_request_error",
          param: null,
          code: "unsupported_endpoint",
        },
      });
    }
    const anonymous = await fetch(`${stack.baseUrl}/files`);
    expect(anonymous.status).toBe(401);
  });
});
