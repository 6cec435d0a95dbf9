import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "./server.js";

let simulator: Simulator;
const openAIHeaders = { authorization: "Bearer sk-test-key", "content-type": "application/json" };
const geminiHeaders = { "x-goog-api-key": "test-key", "content-type": "application/json" };

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(async () => {
  await fetch(`${simulator.url}/_sim/faults`, { method: "DELETE" });
});

// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the shape of response bodies
type Body = any;

async function post(path: string, body: unknown, headers: Record<string, string> = openAIHeaders) {
  const response = await fetch(`${simulator.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Body };
}

describe("OpenAI embeddings", () => {
  it("answers one unit vector per input with usage, deterministically", async () => {
    const body = { model: "text-embedding-3-small", input: ["alpha", "beta gamma"] };
    const first = await post("/v1/embeddings", body);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: "list", model: "text-embedding-3-small" });
    expect(first.body.data.map((item: Body) => [item.object, item.index, item.embedding.length])).toEqual([
      ["embedding", 0, 1536],
      ["embedding", 1, 1536],
    ]);
    expect(first.body.usage).toEqual({ prompt_tokens: 2 + 3, total_tokens: 5 });
    expect((await post("/v1/embeddings", body)).body.data).toEqual(first.body.data);
  });

  it("honours dimensions and base64, and takes token ids", async () => {
    const floats = await post("/v1/embeddings", { model: "text-embedding-3-large", input: "x", dimensions: 4 });
    const encoded = await post("/v1/embeddings", {
      model: "text-embedding-3-large",
      input: "x",
      dimensions: 4,
      encoding_format: "base64",
    });
    const bytes = Buffer.from(encoded.body.data[0].embedding, "base64");
    const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
    expect(floats.body.data[0].embedding).toHaveLength(4);
    expect(decoded).toEqual(floats.body.data[0].embedding);
    const tokens = await post("/v1/embeddings", { model: "text-embedding-3-small", input: [[1, 2, 3], [4]] });
    expect(tokens.body.usage.prompt_tokens).toBe(4);
  });

  it("refuses what OpenAI refuses, and needs a key", async () => {
    expect((await post("/v1/embeddings", { model: "text-embedding-3-small", input: "" })).status).toBe(400);
    expect((await post("/v1/embeddings", { model: "text-embedding-3-small", input: [] })).status).toBe(400);
    const fixed = await post("/v1/embeddings", { model: "text-embedding-ada-002", input: "a", dimensions: 8 });
    expect(fixed).toMatchObject({ status: 400, body: { error: { param: "dimensions" } } });
    expect(
      (await post("/v1/embeddings", { model: "m", input: "a" }, { "content-type": "application/json" })).status,
    ).toBe(401);
  });

  it("applies directives and queued faults", async () => {
    const failed = await post("/v1/embeddings", { model: "text-embedding-3-small", input: "[sim:status=503]" });
    expect(failed.status).toBe(503);
    await post("/_sim/faults", { status: 429, model: "text-embedding-3-small" });
    expect((await post("/v1/embeddings", { model: "text-embedding-3-small", input: "ok" })).status).toBe(429);
    expect((await post("/v1/embeddings", { model: "text-embedding-3-small", input: "ok" })).status).toBe(200);
  });
});

describe("Gemini embeddings", () => {
  const path = (method: string) => `/v1beta/models/gemini-embedding-001:${method}`;

  it("embeds a batch with outputDimensionality and no usage", async () => {
    const { status, body } = await post(
      path("batchEmbedContents"),
      {
        requests: [
          { model: "models/gemini-embedding-001", content: { parts: [{ text: "one" }] }, outputDimensionality: 16 },
          { model: "models/gemini-embedding-001", content: { parts: [{ text: "two" }] } },
        ],
      },
      geminiHeaders,
    );
    expect(status).toBe(200);
    expect(body.embeddings.map((item: Body) => item.values.length)).toEqual([16, 3072]);
    expect(body).not.toHaveProperty("usageMetadata");
  });

  it("embeds one content, and refuses a mismatched model or a missing key", async () => {
    const single = await post(path("embedContent"), { content: { parts: [{ text: "one" }] } }, geminiHeaders);
    expect(single.body.embedding.values).toHaveLength(3072);
    const mismatched = await post(
      path("batchEmbedContents"),
      { requests: [{ model: "models/other", content: { parts: [{ text: "x" }] } }] },
      geminiHeaders,
    );
    expect(mismatched).toMatchObject({ status: 400, body: { error: { status: "INVALID_ARGUMENT" } } });
    const anonymous = await post(path("embedContent"), { content: { parts: [{ text: "x" }] } }, {});
    expect(anonymous.status).toBe(401);
  });
});
