import { simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import type { ChatCompletionTool } from "openai/resources";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The current lineups' own wire rules, through the running stack and the official openai SDK: the
// gateway keeps clients working where a model refuses what older ones took, and the simulated
// vendor would refuse it otherwise (docs/catalogue.md, "Wire changes").

let stack: TestStack;
let client: OpenAI;

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium", creditYuan: 1_000 });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

async function upstreamBody(marker: string): Promise<Record<string, unknown>> {
  const sent = (await simulatorRequests(stack.simulatorUrl)).filter((request) =>
    JSON.stringify(request.body).includes(marker),
  );
  expect(sent, marker).toHaveLength(1);
  return sent[0]!.body!;
}

const extract: ChatCompletionTool = {
  type: "function",
  function: {
    name: "extract_city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const other: ChatCompletionTool = { type: "function", function: { name: "get_time", parameters: { type: "object" } } };

describe("Claude Sonnet 5.5, which refuses a forced tool choice", () => {
  it("still gives structured output through a forced function, as LangChain's function_calling asks", async () => {
    const completion = await client.chat.completions.create({
      model: "claude-sonnet-5-5",
      messages: [{ role: "user", content: "Paris is lovely lineup-forced-1" }],
      tools: [other, extract],
      tool_choice: { type: "function", function: { name: "extract_city" } },
    });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("extract_city");
    expect(JSON.parse(call.type === "function" ? call.function.arguments : "")).toHaveProperty("city");
    const upstream = await upstreamBody("lineup-forced-1");
    expect(upstream.tool_choice).toEqual({ type: "auto" });
    expect(upstream.tools).toEqual([expect.objectContaining({ name: "extract_city" })]);
    expect(upstream.system).toContain("Answer by calling the tool `extract_city`");
  });

  it("gives JSON for response_format json_schema, as the openai SDK's parse asks", async () => {
    const completion = await client.chat.completions.create({
      model: "claude-sonnet-5-5",
      messages: [{ role: "user", content: "Where? lineup-json-2" }],
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "place",
          strict: true,
          schema: {
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
            additionalProperties: false,
          },
        },
      },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toHaveProperty("city");
  });

  it("turns thinking off with between_tools, since it refuses disabled", async () => {
    await client.chat.completions.create({
      model: "claude-sonnet-5-5",
      messages: [{ role: "user", content: "Quick one lineup-off-3" }],
      reasoning_effort: "none",
    });
    expect((await upstreamBody("lineup-off-3")).thinking).toEqual({ type: "between_tools" });
  });
});

describe("Claude Opus 5.5 and Haiku 5.5", () => {
  it("answers a request for no thinking on Opus 5.5, which cannot stop thinking, at the least effort", async () => {
    const completion = await client.chat.completions.create({
      model: "claude-opus-5-5",
      messages: [{ role: "user", content: "Quick one lineup-off-4" }],
      reasoning_effort: "none",
      temperature: 0.2,
    });
    expect(completion.choices[0]!.message.content).toContain("lineup-off-4");
    const upstream = await upstreamBody("lineup-off-4");
    expect(upstream).toMatchObject({ thinking: { type: "adaptive" }, output_config: { effort: "low" } });
    expect(upstream).not.toHaveProperty("temperature");
  });

  it("refuses a prefill on Haiku 5.5 with a clear 400 before calling Anthropic", async () => {
    const error = await client.chat.completions
      .create({
        model: "claude-haiku-5-5",
        messages: [
          { role: "user", content: "Name a colour lineup-prefill-5" },
          { role: "assistant", content: "The colour is" },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("final assistant message");
    const sent = (await simulatorRequests(stack.simulatorUrl)).filter((request) =>
      JSON.stringify(request.body).includes("lineup-prefill-5"),
    );
    expect(sent).toHaveLength(0);
  });
});

describe("Kimi K3, which takes temperature 1 only", () => {
  it("answers a request with another temperature, leaving it out", async () => {
    const completion = await client.chat.completions.create({
      model: "kimi-k3",
      messages: [{ role: "user", content: "Warm lineup-kimi-6" }],
      temperature: 0.3,
    });
    expect(completion.choices[0]!.message.content).toContain("lineup-kimi-6");
    expect(await upstreamBody("lineup-kimi-6")).not.toHaveProperty("temperature");
  });
});

describe("efforts moved to the ones a model takes", () => {
  it.each([
    ["gpt-6.2-sol", "none", { reasoning_effort: "low" }],
    ["grok-4.5", "minimal", { reasoning_effort: "low" }],
    ["gemini-3.6-flash", "xhigh", { generationConfig: { thinkingConfig: { thinkingLevel: "high" } } }],
    ["gemini-3.1-pro-preview", "none", { generationConfig: { thinkingConfig: { thinkingLevel: "low" } } }],
    ["kimi-k3", "medium", { reasoning_effort: "high" }],
  ] as const)("%s asked for %s", async (model, effort, expected) => {
    const marker = `lineup-effort-${model}`;
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: marker }],
      reasoning_effort: effort as OpenAI.ReasoningEffort,
    });
    expect(completion.choices[0]!.message.content).toContain(marker);
    expect(await upstreamBody(marker)).toMatchObject(expected);
  });
});
