import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedGateway, type StartedState, spawnStart } from "./start-process.js";

// `GATEWAY_ENV=production pnpm start` with one vendor key, whose vendor is a tiny HTTP server
// of the test's own standing in for OpenAI at OPENAI_BASE_URL.
interface VendorCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: { model: string };
}
const vendorCalls: VendorCall[] = [];
let vendor: Server;
let vendorUrl: string;
let gateway: StartedGateway;
let state: StartedState;
// Edge's first moments: every /healthz answer, and the demo key's answer at the first OK.
const healthChecks: number[] = [];
let firstKeyUse: number | undefined;
const demoKey = `gw-demo-${Date.now()}-production-start`;

function standInOpenAI(): Server {
  return createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      const body = JSON.parse(text) as VendorCall["body"];
      vendorCalls.push({ path: request.url ?? "", headers: request.headers, body });
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          id: "chatcmpl-stand-in",
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [
            { index: 0, message: { role: "assistant", content: "Hello from the stand-in." }, finish_reason: "stop" },
          ],
          usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
        }),
      );
    });
  });
}

/** Asks /healthz until it answers OK, then uses the demo key at once. */
async function watchEdgeFromItsFirstMoment(edge: string) {
  for (;;) {
    if (gateway.process.exitCode !== null) return;
    const health = await fetch(`${edge}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    healthChecks.push(health);
    if (health === 200) {
      const models = await fetch(`${edge}/v1/models`, { headers: { authorization: `Bearer ${demoKey}` } });
      firstKeyUse = models.status;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

beforeAll(async () => {
  vendor = standInOpenAI();
  vendor.listen(0, "127.0.0.1");
  await once(vendor, "listening");
  vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/v1`;
  gateway = await spawnStart({
    GATEWAY_ENV: "production",
    OPENAI_API_KEY: "sk-stand-in-key",
    OPENAI_BASE_URL: vendorUrl,
    GATEWAY_DEMO_KEY: demoKey,
    ...Object.fromEntries(
      ["ANTHROPIC", "GEMINI", "XAI", "DEEPSEEK", "DASHSCOPE", "MOONSHOT"].map((vendor) => [`${vendor}_API_KEY`, ""]),
    ),
  });
  const watching = watchEdgeFromItsFirstMoment(`http://127.0.0.1:${gateway.edgePort}`);
  state = await gateway.running();
  await watching;
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
  vendor?.close();
}, 60_000);

describe("GATEWAY_ENV=production pnpm start", () => {
  it("runs no simulator and no development OpenID provider", () => {
    const entries = gateway.serviceEntries();
    expect(entries).toEqual(
      expect.arrayContaining(
        ["edge", "router", "ledger", "video", "console"].map((name) => `services/${name}/dist/main.js`),
      ),
    );
    expect(entries.filter((entry) => /simulator|oidc/.test(entry))).toEqual([]);
  });

  it("says which channels are on, which are off for want of a key, the base URL and the demo key", async () => {
    // The start prints this after writing the state file that running() waits for: on a busy
    // machine the lines may still be on their way through the pipe.
    await expect.poll(() => gateway.output(), { timeout: 10_000 }).toContain(`Demo key:  ${demoKey}`);
    const output = gateway.output();
    expect(output).toContain("running on the real vendors (GATEWAY_ENV=production)");
    expect(output).toContain(`openai-main (openai) -> ${vendorUrl}`);
    expect(output).toMatch(/Channels off for want of a key:[\s\S]*anthropic-main \(anthropic\): set ANTHROPIC_API_KEY/);
    expect(output).toContain(`Base URL:  ${state.baseUrl}`);
    expect(output).toContain(`Demo key:  ${demoKey}`);
    expect(output).toContain("no sign-in method: set GITHUB_CLIENT_ID");
  });

  it("serves the demo key from the first moment /healthz answers", () => {
    expect(healthChecks.at(-1)).toBe(200);
    expect(firstKeyUse).toBe(200);
  });

  it("sends an openai SDK request to the vendor at its base URL, with its key", async () => {
    const client = new OpenAI({ baseURL: state.baseUrl, apiKey: state.demo.api_key, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(answer.choices[0]?.message.content).toBe("Hello from the stand-in.");
    expect(answer.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 });
    expect(vendorCalls.at(-1)).toMatchObject({
      path: "/v1/chat/completions",
      headers: { authorization: "Bearer sk-stand-in-key" },
      body: { model: "gpt-4o-mini" },
    });
  });

  it("refuses a model whose vendor has no key", async () => {
    const client = new OpenAI({ baseURL: state.baseUrl, apiKey: state.demo.api_key, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: "deepseek-chat", messages: [{ role: "user", content: "Hello" }] }),
    ).rejects.toMatchObject({ status: 404 });
  });
});
