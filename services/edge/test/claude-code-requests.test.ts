import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import {
  type SimulatedRequest,
  simulatorRequests,
  startTestStack,
  type TestStack,
  usageRecordOf,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The request Claude Code 2.1.197 opens a session with (POST /v1/messages?beta=true, streamed):
// a system message in the middle of `messages`, Claude-only fields, betas, a cache scope.
// Claude gets it as sent; other families get it translated, nothing Claude-only leaking through.

let stack: TestStack;
let client: Anthropic;
let openai: OpenAI;
let apiKey: string;

const betas = [
  "claude-code-20250219",
  "context-1m-2025-08-07",
  "interleaved-thinking-2025-05-14",
  "thinking-token-count-2026-05-13",
  "context-management-2025-06-27",
  "prompt-caching-scope-2026-01-05",
  "mid-conversation-system-2026-04-07",
  "effort-2025-11-24",
];

const reminder = "<system-reminder>Plan mode is off.</system-reminder>";

function claudeCodeRequest(model: string, marker: string) {
  return {
    model,
    max_tokens: 64000,
    stream: true,
    system: [
      { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral", scope: "global", ttl: "1h" } },
    ],
    messages: [
      { role: "user", content: [{ type: "text", text: `What is in this folder? ${marker}` }] },
      { role: "system", content: reminder },
    ],
    tools: [
      {
        name: "Glob",
        description: "Finds files by pattern",
        input_schema: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
      },
    ],
    tool_choice: { type: "tool", name: "Glob" },
    thinking: { type: "adaptive" },
    output_config: { effort: "high" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    metadata: { user_id: "user_0f3a_account__session_7c1e" },
  };
}

async function upstream(marker: string): Promise<SimulatedRequest> {
  const requests = (await simulatorRequests(stack.simulatorUrl)).filter((request) =>
    JSON.stringify(request.body).includes(marker),
  );
  expect(requests).toHaveLength(1);
  return requests[0]!;
}

/** Sends the request as Claude Code does and reads its stream to the end. */
async function send(model: string, marker: string) {
  const stream = client.beta.messages.stream(claudeCodeRequest(model, marker) as never, {
    headers: { "anthropic-beta": betas.join(",") },
  });
  const message = await stream.finalMessage();
  const requestId = (await stream.withResponse()).response.headers.get("request-id")!;
  return { message, requestId };
}

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium" });
  apiKey = account.api_key;
  client = new Anthropic({ baseURL: stack.baseUrl.replace(/\/v1$/, ""), apiKey: account.api_key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

describe("Claude Code's opening request", () => {
  it("reaches Claude as sent, betas and Claude-only fields included, with its thinking tokens billed", async () => {
    const { message, requestId } = await send("claude-opus-4-8", "cc-marker-1");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    const sent = await upstream("cc-marker-1");
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["anthropic-beta"]).toBe(betas.join(","));
    const asSent = claudeCodeRequest("claude-opus-4-8", "cc-marker-1");
    // A turn of one text block goes as its string, the form Anthropic's own examples use.
    const instruction = asSent.messages[1];
    const turns = [{ role: "user", content: `What is in this folder? cc-marker-1` }, instruction];
    expect(sent.body).toEqual({ ...asSent, messages: turns });
    const thinking = (message.usage as { output_tokens_details?: { thinking_tokens: number } }).output_tokens_details;
    expect(thinking?.thinking_tokens).toBeGreaterThan(0);
    const record = await usageRecordOf(stack.databaseUrl, requestId);
    expect(record).toMatchObject({
      completion_tokens: message.usage.output_tokens,
      reasoning_tokens: thinking!.thinking_tokens,
      outcome: "ok",
    });
  });

  it("reaches an OpenAI-compatible vendor with the system message in place and the effort as reasoning", async () => {
    const { message } = await send("deepseek-v4-flash", "cc-marker-2");
    expect(message.stop_reason).toBe("tool_use");
    const body = (await upstream("cc-marker-2")).body!;
    expect((body.messages as { role: string }[]).map((turn) => turn.role)).toEqual(["system", "user", "system"]);
    expect((body.messages as { content: unknown }[])[2]!.content).toBe(reminder);
    expect(body.reasoning_effort).toBe("high");
    for (const claudeOnly of ["context_management", "output_config", "thinking", "metadata"]) {
      expect(body).not.toHaveProperty(claudeOnly);
    }
  });

  it("reaches Gemini with the system message folded into the user's turn, in order", async () => {
    const { message } = await send("gemini-2.5-flash", "cc-marker-3");
    expect(message.stop_reason).toBe("tool_use");
    const body = (await upstream("cc-marker-3")).body!;
    expect(body.systemInstruction).toEqual({ parts: [{ text: "You are Claude Code." }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "What is in this folder? cc-marker-3" }, { text: reminder }] },
    ]);
  });
});

describe("Claude's thinking tokens through the other ingresses", () => {
  it("reach chat's completion_tokens_details.reasoning_tokens: the gateway asks Claude to count them", async () => {
    const completion = await openai.chat.completions.create({
      model: "claude-opus-4-8",
      messages: [{ role: "user", content: "Why is the sky blue? cc-marker-4" }],
      reasoning_effort: "low",
    });
    const sent = await upstream("cc-marker-4");
    expect(sent.body!.thinking).toEqual({ type: "adaptive" });
    expect(sent.headers["anthropic-beta"]).toBe("thinking-token-count-2026-05-13");
    expect(completion.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
  });
});

interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const recorded = (name: string): RecordedRequest =>
  JSON.parse(readFileSync(new URL(`./recorded-agent-requests/${name}.json`, import.meta.url), "utf8"));

// What the recording's transport said of itself; the replay's own connection says it anew.
const transportHeaders = new Set(["host", "content-length", "connection", "accept-encoding", "x-api-key"]);

/** Sends a recorded request as it was, but for the model and the key, and reads its stream. */
async function replay(request: RecordedRequest, model: string): Promise<{ status: number; events: string }> {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !transportHeaders.has(name)));
  const response = await fetch(`${stack.baseUrl.replace(/\/v1$/, "")}${request.path}`, {
    method: "POST",
    headers: { ...headers, "x-api-key": apiKey },
    body: JSON.stringify({ ...request.body, model }),
  });
  return { status: response.status, events: await response.text() };
}

// Opus 4.8 for Claude: the first turn's mid-conversation system message is refused by earlier
// Claude models, as Anthropic refuses it (Claude Code then retries without it).
const families = [
  "claude-opus-4-8",
  "gpt-4o-mini",
  "gemini-2.5-flash",
  "grok-4",
  "deepseek-v4-flash",
  "qwen-plus",
  "kimi-k3",
];

describe.each(["claude-code-turn-1", "claude-code-turn-2"])("Claude Code's recorded %s", (name) => {
  it.each(families)("is answered in full by %s", async (model) => {
    const { status, events } = await replay(recorded(name), model);
    expect(status, events.slice(0, 300)).toBe(200);
    expect(events).toContain("event: message_stop");
  });
});
