import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  clearSimulatorRequests,
  simulatorRequests,
  startTestStack,
  type TestStack,
  usageRecordOf,
} from "@gateway/stack";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const shipped = readFileSync(new URL("../../../infra/catalogue/models.yaml", import.meta.url), "utf8");
const flashPrice = "price: { input: 2000000, output: 8000000, cache_read: 40000 }";

// The shipped catalogue, with deepseek-chat's own (unused) price made dearer so a bill at it shows,
// and one more retired model that is refused rather than served.
function testCatalogue(): string {
  const chatAt = shipped.indexOf("  - id: deepseek-chat\n");
  const priceAt = shipped.indexOf(flashPrice, chatAt);
  const dearer = `${shipped.slice(0, priceAt)}price: { input: 50000000, output: 90000000 }${shipped.slice(priceAt + flashPrice.length)}`;
  return dearer.replace(
    "models:\n",
    `models:
  - id: deepseek-v3-old
    vendor: deepseek
    created: 1735689600
    context_window: 64000
    endpoints: [/v1/chat/completions]
    price: { input: 2000000, output: 8000000 }
    price_reason: DeepSeek lists yuan prices
    groups: [default, premium]
    retired: { on: "2026-07-24", successor: deepseek-v4-flash, serve: false }
`,
  );
}

let directory: string;
let stack: TestStack;
let client: OpenAI;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "gw-retired-"));
  const cataloguePath = join(directory, "models.yaml");
  writeFileSync(cataloguePath, testCatalogue());
  stack = await startTestStack({ env: { CATALOGUE_PATH: cataloguePath } });
  const account = await stack.createAccount({});
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
  rmSync(directory, { recursive: true, force: true });
});

const ask = (content: string) => [{ role: "user" as const, content }];

describe("a retired model served by its successor", () => {
  it("answers deepseek-chat from deepseek-v4-flash without thinking, names it, and bills at its price", async () => {
    await clearSimulatorRequests(stack.simulatorUrl);
    const { data, response } = await client.chat.completions
      .create({ model: "deepseek-chat", messages: ask("retired marker-1") })
      .withResponse();
    expect(response.headers.get("x-gateway-served-model")).toBe("deepseek-v4-flash");
    expect(data.model).toBe("deepseek-v4-flash");
    const upstream = (await simulatorRequests(stack.simulatorUrl)).at(-1)!;
    expect(upstream.body).toMatchObject({ model: "deepseek-v4-flash", thinking: { type: "disabled" } });
    const record = await usageRecordOf(stack.databaseUrl, response.headers.get("x-request-id")!);
    expect(record).toMatchObject({ model: "deepseek-v4-flash", cached_tokens: 0 });
    // deepseek-v4-flash at DeepSeek's peak price: 2 micro-yuan per prompt token, 8 per output token, default group at 1x.
    expect(BigInt(record.cost_micros)).toBe(BigInt(2 * record.prompt_tokens + 8 * record.completion_tokens));
  });

  it("streams deepseek-reasoner from deepseek-v4-flash with thinking, with the header", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: "deepseek-reasoner", messages: ask("retired marker-2"), stream: true })
      .withResponse();
    expect(response.headers.get("x-gateway-served-model")).toBe("deepseek-v4-flash");
    let reasoning = "";
    for await (const chunk of stream) {
      expect(chunk.model).toBe("deepseek-v4-flash");
      reasoning += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "";
    }
    expect(reasoning).not.toBe("");
  });

  it("leaves retired ids out of /v1/models", async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toContain("deepseek-v4-flash");
    expect(ids).not.toContain("deepseek-chat");
    expect(ids).not.toContain("deepseek-v3-old");
    expect(await client.models.retrieve("deepseek-chat")).toMatchObject({ id: "deepseek-v4-flash" });
    await expect(client.models.retrieve("deepseek-v3-old")).rejects.toMatchObject({ status: 404 });
  });
});

describe("a retired model not served", () => {
  it("is refused with 404 model_not_found naming its successor, before any vendor call", async () => {
    await clearSimulatorRequests(stack.simulatorUrl);
    const refused = await client.chat.completions
      .create({ model: "deepseek-v3-old", messages: ask("retired marker-3") })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 404, code: "model_not_found" });
    expect((refused as Error).message).toContain("use `deepseek-v4-flash` instead");
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  });

  it("refuses OpenAI's shut-down image models with a 404 naming gpt-image-2.6-sunburst and the date, with no vendor call", async () => {
    await clearSimulatorRequests(stack.simulatorUrl);
    const retired = { "gpt-image-1": "2026-10-23", "dall-e-3": "2026-05-12", "dall-e-2": "2026-05-12" };
    for (const [model, on] of Object.entries(retired)) {
      const refused = await client.images
        .generate({ model, prompt: `retired image ${model}` })
        .catch((error: unknown) => error);
      expect(refused, model).toMatchObject({ status: 404, code: "model_not_found" });
      expect((refused as Error).message, model).toContain(
        `was retired on ${on}; use \`gpt-image-2.6-sunburst\` instead`,
      );
    }
    const image = await toFile(Buffer.from("not read"), "photo.png", { type: "image/png" });
    const edit = await client.images
      .edit({ model: "gpt-image-1", image, prompt: "retired image edit" })
      .catch((error: unknown) => error);
    expect(edit).toMatchObject({ status: 404, code: "model_not_found" });
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  });
});
