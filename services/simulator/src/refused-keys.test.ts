import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "./server.js";

let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(async () => {
  await fetch(`${simulator.url}/_sim/keys/refused`, { method: "DELETE" });
});

const refuse = (apiKey: string, refusal: string) =>
  fetch(`${simulator.url}/_sim/keys/refused`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: apiKey, refusal }),
  });

async function chat(model: string, apiKey: string) {
  const response = await fetch(`${simulator.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("keys the simulated vendors refuse", () => {
  it.each([
    ["gpt-4o-mini", "invalid", 401, { error: { code: "invalid_api_key", type: "invalid_request_error" } }],
    ["gpt-4o-mini", "quota", 429, { error: { code: "insufficient_quota", type: "insufficient_quota" } }],
    ["deepseek-v4-flash", "invalid", 401, { error: { type: "authentication_error" } }],
    ["deepseek-v4-flash", "quota", 402, { error: { message: "Insufficient Balance" } }],
    ["qwen-plus", "invalid", 401, { error: { code: "invalid_api_key" } }],
    ["qwen-plus", "quota", 400, { error: { code: "Arrearage" } }],
    ["kimi-k2.6", "invalid", 401, { error: { type: "invalid_authentication_error" } }],
    ["kimi-k2.6", "quota", 429, { error: { type: "exceeded_current_quota_error" } }],
    ["grok-4", "invalid", 400, { error: expect.stringContaining("Incorrect API key provided") }],
    ["grok-4", "quota", 403, { error: expect.stringContaining("used all available credits") }],
  ])("answer %s's %s key as its vendor does (%i)", async (model, refusal, status, shape) => {
    await refuse("sk-refused-key-0001", refusal);
    const answer = await chat(model, "sk-refused-key-0001");
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject(shape);
    expect(JSON.stringify(answer.body)).not.toContain("sk-refused-key-0001");
  });

  it("answer Claude's refused key and spent credit in Anthropic's shape", async () => {
    await refuse("sk-ant-bad", "invalid");
    await refuse("sk-ant-broke", "quota");
    const messages = (apiKey: string) =>
      fetch(`${simulator.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": apiKey, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-opus-4-7", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
      });
    const bad = await messages("sk-ant-bad");
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const broke = await messages("sk-ant-broke");
    expect(broke.status).toBe(400);
    expect(await broke.json()).toMatchObject({
      error: { message: expect.stringContaining("credit balance is too low") },
    });
  });

  it("answer Gemini's invalid key with API_KEY_INVALID", async () => {
    await refuse("AIza-bad", "invalid");
    const response = await fetch(`${simulator.url}/v1beta/models/gemini-3-flash:generateContent?key=AIza-bad`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { status: "INVALID_ARGUMENT", details: [{ reason: "API_KEY_INVALID" }] },
    });
  });

  it("serve every other key, and the refused one again once cleared", async () => {
    await refuse("sk-refused", "invalid");
    expect((await chat("gpt-4o-mini", "sk-other")).status).toBe(200);
    const listed = await fetch(`${simulator.url}/_sim/keys/refused`);
    expect(await listed.json()).toEqual({ data: [{ api_key: "sk-refused", refusal: "invalid" }] });
    await fetch(`${simulator.url}/_sim/keys/refused`, { method: "DELETE" });
    expect((await chat("gpt-4o-mini", "sk-refused")).status).toBe(200);
  });

  it("refuse a control request that names no key or no known refusal", async () => {
    expect((await refuse("", "invalid")).status).toBe(400);
    expect((await refuse("sk-x", "banned")).status).toBe(400);
  });
});
