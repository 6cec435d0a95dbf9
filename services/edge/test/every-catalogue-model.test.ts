import { join } from "node:path";
import { readCatalogueFile } from "@gateway/catalogue";
import { repoRoot, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Every chat, Responses and embedding model of the shipped catalogue answers through the running
// stack: the simulator speaks each vendor's protocol for every id the catalogue lists. Every id the
// catalogue retires answers as its entry says: by its successor, or a 404 naming it.

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
    expect(models.length).toBeGreaterThanOrEqual(169);
    for (const model of models) {
      const completion = await client.chat.completions.create({
        model,
        messages: [{ role: "user", content: `lineup check ${model}` }],
      });
      expect(completion.choices[0]!.message.content, model).toContain(`lineup check ${model}`);
      expect(completion.usage!.completion_tokens, model).toBeGreaterThan(0);
    }
  });

  it("lists at least 201 models for a premium key, of all seven families", async () => {
    const list = await client.models.list();
    expect(list.data.length).toBeGreaterThanOrEqual(201);
    const families = new Set(list.data.map((model) => model.owned_by));
    expect([...families].sort()).toEqual(["alibaba", "anthropic", "deepseek", "google", "moonshot", "openai", "xai"]);
  });

  it("answers a response on every model offered on /v1/responses alone", async () => {
    const list = await client.models.list();
    const models = list.data
      .filter((model) => {
        const { endpoints } = model as unknown as { endpoints: string[] };
        return endpoints.length === 1 && endpoints[0] === "/v1/responses";
      })
      .map((model) => model.id);
    expect(models.length).toBeGreaterThanOrEqual(6);
    for (const model of models) {
      const response = await client.responses.create({ model, input: `lineup check ${model}` });
      expect(response.output_text, model).toContain(`lineup check ${model}`);
      expect(response.usage!.output_tokens, model).toBeGreaterThan(0);
    }
  });

  it("names the shutdown date and successor of every deprecated model it lists, as OpenAI's list does", async () => {
    const deprecated = readCatalogueFile(join(repoRoot, "infra/catalogue/models.yaml")).models.filter(
      (entry) => entry.deprecated,
    );
    expect(deprecated.length).toBeGreaterThanOrEqual(11);
    const listed = new Map((await client.models.list()).data.map((model) => [model.id, model as unknown]));
    for (const { id, deprecated: deprecation } of deprecated) {
      expect(listed.get(id), id).toMatchObject({
        shutdown_date: deprecation!.shutdown_on,
        successor: deprecation!.successor,
      });
    }
    expect(listed.get("gpt-5.6-sol")).not.toHaveProperty("shutdown_date");
  });

  it("answers every retired id by its successor, or refuses it with a 404 naming the successor", async () => {
    const retired = readCatalogueFile(join(repoRoot, "infra/catalogue/models.yaml")).models.filter(
      (entry) => entry.retired,
    );
    expect(retired.length).toBeGreaterThanOrEqual(17);
    for (const { id, aliases, endpoints, retired: retirement } of retired) {
      for (const name of [id, ...(aliases ?? [])]) {
        const messages = [{ role: "user" as const, content: `retired check ${name}` }];
        if (retirement!.serve) {
          const completion = await client.chat.completions.create({ model: name, messages });
          expect(completion.model, name).toBe(retirement!.successor);
          continue;
        }
        // Each is asked for where it was served: a Responses-only model on /v1/responses, an image model for an image.
        const asked = endpoints.includes("/v1/chat/completions")
          ? client.chat.completions.create({ model: name, messages })
          : endpoints.includes("/v1/images/generations")
            ? client.images.generate({ model: name, prompt: `retired check ${name}` })
            : client.responses.create({ model: name, input: `retired check ${name}` });
        const refused = await asked.catch((error: unknown) => error);
        expect(refused, name).toMatchObject({ status: 404, code: "model_not_found" });
        expect((refused as Error).message, name).toContain(`use \`${retirement!.successor}\` instead`);
      }
    }
  });

  it("draws an image on every image model", async () => {
    const models = await servedBy("/v1/images/generations");
    expect(models.length).toBeGreaterThanOrEqual(12);
    // Qwen-Image and Wan answer through DashScope's asynchronous task API.
    expect(models).toEqual(expect.arrayContaining(["qwen-image-plus", "qwen-image", "wan2.2-t2i-flash"]));
    for (const model of models) {
      const answer = await client.images.generate({ model, prompt: `lineup check ${model}` });
      const image = answer.data![0]!;
      expect(image.url ?? image.b64_json, model).toBeTruthy();
    }
  });

  it("embeds on every embedding model", async () => {
    const models = await servedBy("/v1/embeddings");
    expect(models.length).toBeGreaterThanOrEqual(5);
    for (const model of models) {
      const embedding = await client.embeddings.create({ model, input: "lineup check" });
      expect(embedding.data[0]!.embedding.length, model).toBeGreaterThan(0);
    }
  });
});
