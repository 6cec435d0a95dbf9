import { startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Every chat and embedding model of the shipped catalogue answers through the running stack:
// the simulator speaks each vendor's protocol for every id the catalogue lists.

let stack: TestStack;
let client: OpenAI;

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium", creditYuan: 10_000 });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

const servedBy = async (endpoint: string) => {
  const list = await client.models.list();
  return list.data
    .filter((model) => (model as unknown as { endpoints: string[] }).endpoints.includes(endpoint))
    .map((model) => model.id);
};

describe("every catalogue model through the simulator", () => {
  it("answers a chat on every chat model", async () => {
    const models = await servedBy("/v1/chat/completions");
    expect(models.length).toBeGreaterThanOrEqual(140);
    for (const model of models) {
      const completion = await client.chat.completions.create({
        model,
        messages: [{ role: "user", content: `lineup check ${model}` }],
      });
      expect(completion.choices[0]!.message.content, model).toContain(`lineup check ${model}`);
      expect(completion.usage!.completion_tokens, model).toBeGreaterThan(0);
    }
  });

  it("embeds on every embedding model", async () => {
    const models = await servedBy("/v1/embeddings");
    expect(models.length).toBeGreaterThanOrEqual(4);
    for (const model of models) {
      const embedding = await client.embeddings.create({ model, input: "lineup check" });
      expect(embedding.data[0]!.embedding.length, model).toBeGreaterThan(0);
    }
  });
});
