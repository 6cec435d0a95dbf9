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
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// gpt-4o-mini priced in two bands: above a 40-token prompt, every token of the request costs more.
// In micro-yuan a token: 1000 prompt and 2000 output up to 40 prompt tokens, 3000 and 5000 above.
const band = 40;
const tieredPrice = `    price:
      input: { base: 1000000000, tiers: [{ start: ${band}, price: 3000000000 }] }
      output: { base: 2000000000, tiers: [{ start: ${band}, price: 5000000000 }] }
`;
const shipped = readFileSync(new URL("../../../infra/catalogue/models.yaml", import.meta.url), "utf8");
const entry = "  - id: gpt-4o-mini\n";

let directory: string;
let stack: TestStack;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "gw-tiered-"));
  const cataloguePath = join(directory, "models.yaml");
  writeFileSync(cataloguePath, shipped.replace(entry, `${entry}${tieredPrice}`));
  stack = await startTestStack({ env: { CATALOGUE_PATH: cataloguePath } });
});
afterAll(async () => {
  await stack?.teardown();
  rmSync(directory, { recursive: true, force: true });
});

const clientOf = (apiKey: string) => new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
const shortPrompt = "tiered short [sim:tokens=5]";
const longPrompt = `tiered long [sim:tokens=5] ${"alpha beta gamma delta ".repeat(20)}`;
const ask = (client: OpenAI, content: string) =>
  client.chat.completions
    .create({ model: "gpt-4o-mini", messages: [{ role: "user", content }], max_tokens: 10 })
    .withResponse();

describe("a tiered price through the running stack", () => {
  it("bills each request at the band of its own prompt", async () => {
    const client = clientOf((await stack.createAccount({})).api_key);
    const short = await usageRecordOf(
      stack.databaseUrl,
      (await ask(client, shortPrompt)).response.headers.get("x-request-id")!,
    );
    const long = await usageRecordOf(
      stack.databaseUrl,
      (await ask(client, longPrompt)).response.headers.get("x-request-id")!,
    );
    expect(short.prompt_tokens).toBeLessThanOrEqual(band);
    expect(long.prompt_tokens).toBeGreaterThan(band);
    for (const record of [short, long]) expect(record).toMatchObject({ cached_tokens: 0, completion_tokens: 5 });
    // The default group bills at 1x.
    expect(BigInt(short.cost_micros)).toBe(BigInt(1000 * short.prompt_tokens + 2000 * 5));
    expect(BigInt(long.cost_micros)).toBe(BigInt(3000 * long.prompt_tokens + 5000 * 5));
  });

  it("reserves at the band of the prompt estimate: a balance the lower band would cover is refused", async () => {
    // The long request reserves ~100 prompt tokens and 10 output ones: about 0.12 yuan at the lower
    // band, 0.35 at the upper one. 0.25 yuan covers the first and not the second.
    const client = clientOf((await stack.createAccount({ creditYuan: 0.25 })).api_key);
    await clearSimulatorRequests(stack.simulatorUrl);
    await expect(ask(client, longPrompt)).rejects.toMatchObject({ status: 429, code: "insufficient_quota" });
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
    const { response } = await ask(client, shortPrompt);
    expect(response.status).toBe(200);
  });
});
