import { responseErrors } from "@gateway/openai-spec";
import { startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codexTools } from "../src/openai-wire/codex-tools.fixtures.js";
import { createResponse, streamResponse } from "./responses-wire.js";

// Every /v1/responses answer, JSON and each SSE event, held to OpenAI's published schema
// (@gateway/openai-spec: openai/openai-openapi's openapi.yaml) on every family the chat path
// serves, for each kind of answer: text, tool calls of each kind, reasoning, structured
// output, a length cut, a stored response read back.

let stack: TestStack;
let apiKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  apiKey = (await stack.createAccount({ group: "premium", creditYuan: 1_000 })).api_key;
});
afterAll(async () => {
  await stack?.teardown();
});

const models = [
  "gpt-4o-mini",
  "gpt-5.6-terra",
  "claude-sonnet-4-6",
  "gemini-2.5-flash",
  "deepseek-reasoner",
  "qwen-plus",
  "grok-3-mini",
  "kimi-k3",
];

const answers: [string, Record<string, unknown>][] = [
  ["text", { instructions: "Be brief", input: "Say hello", metadata: { case: "text" }, temperature: 0.5 }],
  [
    "every kind of tool call",
    {
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "You are a coding agent." }] },
        { role: "user", content: "Fix the bug" },
      ],
      tools: codexTools,
      tool_choice: "required",
      parallel_tool_calls: true,
    },
  ],
  [
    "reasoning carried for a client that stores nothing",
    {
      input: "Think about it",
      reasoning: { effort: "medium", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      store: false,
      text: { verbosity: "low" },
      prompt_cache_key: "conformance",
    },
  ],
  [
    "structured output",
    {
      input: "A city",
      text: {
        format: {
          type: "json_schema",
          name: "city",
          schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
    },
  ],
  ["a length cut", { input: "Tell me a long story", max_output_tokens: 16 }],
];

describe.each(models)("OpenAI's Response schema holds %s's answers", (model) => {
  it.each(answers)("as JSON and as each streamed event: %s", async (_name, body) => {
    const json = await createResponse(stack.baseUrl, apiKey, { model, ...body });
    expect(json.status).toBe(200);
    const streamed = await streamResponse(stack.baseUrl, apiKey, { model, ...body });
    expect(streamed.status).toBe(200);
    expect(["response.completed", "response.incomplete"]).toContain(streamed.events.at(-1)!.type);
  });
});

it("holds a stored response read back to OpenAI's Response schema", async () => {
  const created = await createResponse(stack.baseUrl, apiKey, { model: "claude-sonnet-4-6", input: "Remember me" });
  const read = await fetch(`${stack.baseUrl}/responses/${String(created.body.id)}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  expect(read.status).toBe(200);
  expect(responseErrors(await read.json())).toEqual([]);
});
