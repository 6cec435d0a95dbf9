import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "./server.js";

// The simulator held to real vendor answers (tools/replay/recordings): for each family and feature
// with a recording, the simulator's answer to the matching request must have the recording's key
// paths and value types, its stream's event pattern and its usage arithmetic. Texts are not compared.

const recordings = new URL("../../../tools/replay/recordings/", import.meta.url);

interface Entry {
  id: string;
  file: string;
  format: string;
  stream: boolean;
  headers?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(new URL("manifest.json", recordings), "utf8")) as Entry[];

// biome-ignore lint/suspicious/noExplicitAny: recorded and simulated bodies are compared by their shape
type Json = any;

/** The recorded payloads: the one JSON body, or each streamed chunk. */
function recorded(id: string): Json[] {
  const entry = manifest.find((candidate) => candidate.id === id);
  if (!entry) throw new Error(`no recording ${id}`);
  // cnblogs/dashscope-sdk keeps its recordings with a byte-order mark, which no vendor sends.
  const text = readFileSync(new URL(entry.file, recordings), "utf8").replace(/^\uFEFF/, "");
  if (entry.format === "json") return [JSON.parse(text)];
  if (entry.format === "sse-chunks")
    return text
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line));
  throw new Error(`${id}: only json and sse-chunks recordings are compared here`);
}

/** Payloads of a simulator answer: its JSON body, or the data of each SSE event. */
async function payloads(response: Response): Promise<Json[]> {
  const text = await response.text();
  if (!(response.headers.get("content-type") ?? "").includes("event-stream")) return [JSON.parse(text)];
  return text
    .split(/\r?\n\r?\n/)
    .flatMap((frame) => frame.split(/\r?\n/).filter((line) => line.startsWith("data:")))
    .map((line) => line.slice(5).trim())
    .filter((data) => data && data !== "[DONE]")
    .map((data) => JSON.parse(data));
}

const typeOf = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** Every key path with the types seen at it (array items share the path `[]`). */
function shape(values: Json[], ignore: RegExp | undefined): Map<string, Set<string>> {
  const paths = new Map<string, Set<string>>();
  const visit = (value: unknown, path: string) => {
    if (ignore?.test(path)) return;
    if (path) {
      const types = paths.get(path) ?? new Set<string>();
      types.add(typeOf(value));
      paths.set(path, types);
    }
    if (Array.isArray(value)) for (const item of value) visit(item, `${path}[]`);
    else if (value && typeof value === "object")
      for (const [key, item] of Object.entries(value)) visit(item, `${path}.${key}`);
  };
  for (const value of values) visit(value, "");
  return paths;
}

/** Paths of the recording the simulator lacks, or gives another (non-null) type. */
function drift(recording: Json[], simulated: Json[], ignore?: RegExp): string[] {
  const want = shape(recording, ignore);
  const got = shape(simulated, ignore);
  const problems: string[] = [];
  for (const [path, types] of want) {
    const have = got.get(path);
    if (!have) problems.push(`missing ${path}`);
    else {
      const wanted = [...types].filter((type) => type !== "null");
      if (wanted.length > 0 && !wanted.some((type) => have.has(type))) {
        problems.push(`${path}: ${[...have].join("|")} where the vendor sends ${wanted.join("|")}`);
      }
    }
  }
  return problems;
}

/** A stream's events by kind, runs of one kind collapsed: the order pattern to compare. */
function pattern(events: Json[], kindOf: (event: Json) => string): string[] {
  const kinds: string[] = [];
  for (const event of events) {
    const kind = kindOf(event);
    if (kind && kinds.at(-1) !== kind) kinds.push(kind);
  }
  return kinds;
}

function chatKind(chunk: Json): string {
  const usage = chunk.usage ? "+usage" : "";
  const choice = chunk.choices?.[0];
  if (!choice) return `usage-only${usage}`;
  if (choice.finish_reason) return `finish${usage}`;
  const delta = choice.delta ?? {};
  if (delta.tool_calls) return delta.tool_calls[0].id ? "tool-open" : "tool-args";
  if (delta.reasoning_content) return "reasoning";
  if (typeof delta.content === "string" && delta.content) return "content";
  return "role";
}

const anthropicKind = (event: Json) =>
  event.type === "ping"
    ? ""
    : `${event.type}${event.content_block ? `:${event.content_block.type}` : ""}${event.delta?.type ? `:${event.delta.type}` : ""}`;

function geminiKind(chunk: Json): string {
  const parts = chunk.candidates?.[0]?.content?.parts ?? [];
  const kinds = parts.map((part: Json) =>
    part.functionCall ? "call" : part.thought ? "thought" : part.thoughtSignature ? "text+sig" : "text",
  );
  return `${kinds.join(",")}${chunk.candidates?.[0]?.finishReason ? "|finish" : ""}`;
}

/** A Responses event by its type and, for item events, the item's type. */
const responsesKind = (event: Json) => `${event.type}${event.item ? `:${event.item.type}` : ""}`;

/** Which of the usage relations the payloads' final usage satisfies. */
function chatUsageRelations(values: Json[]): string[] {
  const usage = values.findLast((value) => value.usage)?.usage;
  if (!usage) return ["no usage"];
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  const relations: string[] = [];
  if (usage.prompt_tokens + usage.completion_tokens === usage.total_tokens) relations.push("p+c=t");
  if (reasoning > 0 && usage.prompt_tokens + usage.completion_tokens + reasoning === usage.total_tokens) {
    relations.push("p+c+r=t");
  }
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0;
  // Whether a prompt hit the cache depends on what came before it; only cached beyond the prompt is wrong.
  if (cached > usage.prompt_tokens) relations.push("cached>p");
  return relations;
}

function geminiUsageRelations(values: Json[]): string[] {
  const usage = values.findLast((value) => value.usageMetadata?.totalTokenCount)?.usageMetadata;
  if (!usage) return ["no usage"];
  const sum = usage.promptTokenCount + (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0);
  return [sum === usage.totalTokenCount ? "p+c+thoughts=t" : "other", usage.thoughtsTokenCount ? "thoughts" : ""];
}

let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
});

afterAll(async () => {
  await simulator.close();
});

const weather = {
  name: "weather",
  description: "The weather in a location",
  parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
};
const noArguments = {
  name: "updateIssueList",
  description: "Refresh the issue list",
  parameters: { type: "object", properties: {} },
};

function chat(model: string, options: { stream?: boolean; tools?: boolean; extra?: Json } = {}) {
  const body = {
    model,
    messages: [{ role: "user", content: options.tools ? "What is the weather in San Francisco?" : "Say hello" }],
    ...(options.tools ? { tools: [{ type: "function", function: weather }], tool_choice: "required" } : {}),
    ...(options.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    ...options.extra,
  };
  return fetch(`${simulator.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer sk-held", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function messages(options: { stream?: boolean; tool?: Json; thinking?: boolean } = {}) {
  const body = {
    model: "claude-sonnet-4-5-20250929",
    max_tokens: 2048,
    messages: [{ role: "user", content: "Hello" }],
    ...(options.tool
      ? {
          tools: [
            { name: options.tool.name, description: options.tool.description, input_schema: options.tool.parameters },
          ],
          tool_choice: { type: "any" },
        }
      : {}),
    ...(options.thinking ? { thinking: { type: "enabled", budget_tokens: 1024 } } : {}),
    ...(options.stream ? { stream: true } : {}),
  };
  return fetch(`${simulator.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": "sk-held", "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function generate(model: string, options: { stream?: boolean; tools?: boolean; thinking?: boolean } = {}) {
  const body = {
    contents: [{ role: "user", parts: [{ text: options.tools ? "What is the weather in San Francisco?" : "Hello" }] }],
    ...(options.tools
      ? { tools: [{ functionDeclarations: [weather] }], toolConfig: { functionCallingConfig: { mode: "ANY" } } }
      : {}),
    ...(options.thinking ? { generationConfig: { thinkingConfig: { includeThoughts: true } } } : {}),
  };
  const method = options.stream ? "streamGenerateContent?alt=sse" : "generateContent";
  return fetch(`${simulator.url}/v1beta/models/${model}:${method}`, {
    method: "POST",
    headers: { "x-goog-api-key": "sim-held", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function responses(options: { stream?: boolean; tools?: boolean } = {}) {
  const body = {
    model: "gpt-5.1-codex-max",
    input: options.tools ? "What is the weather in San Francisco?" : "Hello",
    reasoning: { effort: "high", summary: "detailed" },
    include: ["reasoning.encrypted_content"],
    store: false,
    ...(options.tools ? { tools: [{ type: "function", ...weather, strict: true }] } : {}),
    ...(options.stream ? { stream: true } : {}),
  };
  return fetch(`${simulator.url}/v1/responses`, {
    method: "POST",
    headers: { authorization: "Bearer sk-held", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** A Responses recording of several exchanges, cut after its first response's terminal event. */
const firstResponse = (events: Json[]) =>
  events.slice(0, events.findIndex((event) => event.type === "response.completed") + 1);

interface Cell {
  family: string;
  feature: string;
  recording: string;
  ask: () => Promise<Response>;
  kind: "chat" | "anthropic" | "gemini" | "responses";
  /** Key paths the gateway never reads and the simulator need not send (vendor bookkeeping). */
  ignore?: RegExp;
  /** Claude chose to write a sentence before its call; the simulator calls at once, so text blocks are left out. */
  skipText?: boolean;
  /** The part of the recording the request matches. */
  part?: (recording: Json[]) => Json[];
}

const cell = (
  family: string,
  feature: string,
  recording: string,
  kind: Cell["kind"],
  ask: Cell["ask"],
  more: Partial<Cell> = {},
): Cell => ({ family, feature, recording, kind, ask, ...more });

const grok = { reasoning_effort: "low" };
const think = { enable_thinking: true };

const cells: Cell[] = [
  cell("openai", "text", "openai-chat-text", "chat", () => chat("gpt-4.1-nano")),
  // obfuscation: random padding OpenAI adds to stream chunks against length side channels.
  cell("openai", "stream", "openai-chat-text-stream", "chat", () => chat("gpt-4.1-nano", { stream: true }), {
    ignore: /^\.obfuscation$/,
  }),
  cell("deepseek", "text", "deepseek-text", "chat", () => chat("deepseek-chat")),
  cell("deepseek", "stream", "deepseek-text-stream", "chat", () => chat("deepseek-chat", { stream: true })),
  cell("deepseek", "reasoning", "deepseek-reasoning", "chat", () => chat("deepseek-reasoner")),
  cell("deepseek", "reasoning stream", "deepseek-reasoning-stream", "chat", () =>
    chat("deepseek-reasoner", { stream: true }),
  ),
  cell("deepseek", "tools", "deepseek-tool-call", "chat", () => chat("deepseek-reasoner", { tools: true })),
  cell("deepseek", "tools stream", "deepseek-tool-call-stream", "chat", () =>
    chat("deepseek-reasoner", { tools: true, stream: true }),
  ),
  cell("qwen", "text", "qwen-text", "chat", () => chat("qwen3-max")),
  cell("qwen", "stream", "qwen-text-stream", "chat", () => chat("qwen3-max", { stream: true })),
  cell("qwen", "reasoning", "qwen-reasoning", "chat", () => chat("qwen3-max", { extra: think })),
  cell("qwen", "reasoning stream", "qwen-reasoning-stream", "chat", () =>
    chat("qwen3-max", { stream: true, extra: think }),
  ),
  cell("qwen", "tools", "qwen-tool-call", "chat", () => chat("qwen3-max", { tools: true })),
  cell("qwen", "tools stream", "qwen-tool-call-stream", "chat", () => chat("qwen3-max", { tools: true, stream: true })),
  // xAI counts reasoning outside completion_tokens and adds its own usage fields (cost_in_usd_ticks, ...).
  cell("xai", "reasoning usage", "xai-grok-3-mini-text", "chat", () => chat("grok-3-mini", { extra: grok }), {}),
  cell(
    "xai",
    "reasoning usage stream",
    "xai-grok-3-mini-text-stream",
    "chat",
    () => chat("grok-3-mini", { stream: true, extra: grok }),
    {},
  ),
  cell(
    "xai",
    "tools",
    "xai-grok-3-mini-tool-call",
    "chat",
    () => chat("grok-3-mini", { tools: true, extra: grok }),
    {},
  ),
  cell("anthropic", "text", "anthropic-text", "anthropic", () => messages()),
  cell("anthropic", "stream", "anthropic-text-stream", "anthropic", () => messages({ stream: true })),
  cell("anthropic", "no-arg tool", "anthropic-tool-no-args", "anthropic", () => messages({ tool: noArguments }), {
    skipText: true,
  }),
  cell(
    "anthropic",
    "no-arg tool stream",
    "anthropic-tool-no-args-stream",
    "anthropic",
    () => messages({ tool: noArguments, stream: true }),
    { skipText: true },
  ),
  // context_management answers the context-editing beta that recording's request turned on.
  cell("anthropic", "thinking signature", "anthropic-clear-thinking", "anthropic", () => messages({ thinking: true }), {
    ignore: /^\.context_management/,
  }),
  cell(
    "anthropic",
    "thinking signature stream",
    "anthropic-clear-thinking-stream",
    "anthropic",
    () => messages({ thinking: true, stream: true }),
    { ignore: /^\.context_management/ },
  ),
  // Every Gemini recording here is gemini-3-pro-preview, whose parts carry a thoughtSignature.
  cell("gemini", "text", "gemini-text", "gemini", () => generate("gemini-3-pro-preview")),
  cell("gemini", "stream", "gemini-text-stream", "gemini", () => generate("gemini-3-pro-preview", { stream: true })),
  cell("gemini", "reasoning", "gemini-reasoning", "gemini", () => generate("gemini-3-pro-preview", { thinking: true })),
  cell("gemini", "gemini-3 tool call", "gemini-3-tool-call", "gemini", () =>
    generate("gemini-3-pro-preview", { tools: true }),
  ),
  cell("gemini", "gemini-3 tool call stream", "gemini-3-tool-call-stream", "gemini", () =>
    generate("gemini-3-pro-preview", { tools: true, stream: true }),
  ),
  // OpenAI's Responses API: `billing` and the prompt-cache and safety settings are bookkeeping the
  // gateway relays as they come; `user` (null, which OpenAI's schema forbids) the simulator leaves
  // out; `tools` echoes the recorded request's own.
  cell("openai", "responses reasoning", "openai-responses-reasoning-encrypted", "responses", () => responses(), {
    ignore: /^\.(billing|prompt_cache_retention|safety_identifier|user|tools)\b/,
  }),
  cell(
    "openai",
    "responses reasoning and tool stream",
    "openai-responses-reasoning-encrypted-stream",
    "responses",
    () => responses({ tools: true, stream: true }),
    {
      ignore: /\.obfuscation$|^\.response\.(prompt_cache_retention|safety_identifier|user|tools\[\]\.parameters)\b/,
      part: firstResponse,
    },
  ),
];

const textBlock = /(^|\.)(content\[\]|content_block|delta)\.text$/;

/** Leaves out the recording's text blocks, and the events that carry them. */
function withoutText(events: Json[]): Json[] {
  const textIndexes = new Set<number>();
  for (const event of events) if (event.content_block?.type === "text") textIndexes.add(event.index);
  return events
    .filter((event) => !textIndexes.has(event.index))
    .map((event) =>
      event.content ? { ...event, content: event.content.filter((block: Json) => block.type !== "text") } : event,
    );
}

function compare(cell: Cell, recording: Json[], simulated: Json[]): string[] {
  if (cell.part) recording = cell.part(recording);
  if (cell.skipText) recording = withoutText(recording);
  const ignore = cell.skipText ? new RegExp(`${cell.ignore?.source ?? "$^"}|${textBlock.source}`) : cell.ignore;
  const problems = drift(recording, simulated, ignore);
  if (recording.length > 1) {
    const kindOf = { chat: chatKind, anthropic: anthropicKind, gemini: geminiKind, responses: responsesKind }[
      cell.kind
    ];
    const want = pattern(recording, kindOf).join(" ");
    const got = pattern(simulated, kindOf).join(" ");
    if (want !== got) problems.push(`events "${got}" where the vendor sends "${want}"`);
  }
  const relations =
    cell.kind === "chat" ? chatUsageRelations : cell.kind === "gemini" ? geminiUsageRelations : undefined;
  if (relations) {
    const want = relations(recording).join(" ");
    const got = relations(simulated).join(" ");
    if (want !== got) problems.push(`usage relations "${got}" where the vendor's are "${want}"`);
  }
  return problems;
}

describe("the simulator held to recorded vendor answers", () => {
  for (const cell of cells) {
    const title = `${cell.family} ${cell.feature} (${cell.recording})`;
    const check = async () => {
      const response = await cell.ask();
      expect(response.status).toBe(200);
      expect(compare(cell, recorded(cell.recording), await payloads(response))).toEqual([]);
    };
    it(title, check);
  }
});

// DashScope's asynchronous image task, step by step: the recording is of wanx-v1 on the same API as
// qwen-image-plus, which the simulator is asked for; the result URLs and prompts are not compared.
describe("the simulator's DashScope image task held to its recorded exchange", () => {
  const dashScope = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${simulator.url}/api/v1/${path}`, {
      ...init,
      headers: { authorization: "Bearer sk-held", ...(init.headers as Record<string, string>) },
    });
    expect(response.status).toBe(200);
    return { type: response.headers.get("content-type"), body: (await response.json()) as Json };
  };
  const submit = (prompt: string) =>
    dashScope("services/aigc/text2image/image-synthesis", {
      method: "POST",
      headers: { "content-type": "application/json", "x-dashscope-async": "enable" },
      body: JSON.stringify({ model: "qwen-image-plus", input: { prompt }, parameters: { size: "1328*1328", n: 1 } }),
    });
  const poll = (id: string) => dashScope(`tasks/${encodeURIComponent(id)}`);
  /** Where the answer's body or content type differs from the recording's. */
  const differences = (id: string, answer: { type: string | null; body: Json }) => {
    const recordedType = manifest.find((entry) => entry.id === id)?.headers?.["content-type"];
    const type =
      answer.type === recordedType ? [] : [`content-type ${answer.type} where DashScope sends ${recordedType}`];
    return [...type, ...drift(recorded(id), [answer.body])];
  };

  it("answers the submission and the task while it runs as DashScope did", async () => {
    const submitted = await submit("a running cat [sim:task_ms=600000]");
    expect(differences("qwen-image-synthesis-submit", submitted)).toEqual([]);
    expect(submitted.body.output.task_status).toBe("PENDING");
    const id = submitted.body.output.task_id;
    await poll(id); // PENDING until first asked after, as a queued task is
    const running = await poll(id);
    expect(running.body.output.task_status).toBe("RUNNING");
    expect(differences("qwen-image-synthesis-running", running)).toEqual([]);
  });

  it("answers the ended task with its results, metrics and image count as DashScope did", async () => {
    const submitted = await submit("a finished cat [sim:task_ms=0]");
    const ended = await poll(submitted.body.output.task_id);
    expect(ended.body.output.task_status).toBe("SUCCEEDED");
    expect(differences("qwen-image-synthesis-succeeded", ended)).toEqual([]);
    // The recording's arithmetic: every image counted made, one result and one billed image each.
    const { output, usage } = ended.body;
    expect([output.task_metrics.SUCCEEDED, output.results.length, usage.image_count]).toEqual(
      Array(3).fill(output.task_metrics.TOTAL),
    );
  });

  it("answers a task it does not know as DashScope did", async () => {
    const unknown = await poll("1111");
    expect(differences("qwen-image-synthesis-unknown", unknown)).toEqual([]);
    expect(unknown.body).toMatchObject({ output: { task_id: "1111", task_status: "UNKNOWN" } });
  });
});
