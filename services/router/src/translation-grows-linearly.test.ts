import type { CatalogueModel } from "@gateway/catalogue";
import { type Caller, LogCapture } from "@gateway/proto/common/v1/common";
import type { ChatRequest, Message } from "@gateway/proto/router/v1/chat";
import { superLinear, tenfoldGrowth } from "@gateway/stack";
import { describe, expect, it } from "vitest";
import { toAnthropicRequest } from "./adapters/anthropic/to-anthropic-request.js";
import { toGeminiRequest } from "./adapters/gemini/to-gemini-request.js";
import { toOpenAIRequest } from "./adapters/openai-compatible/to-openai-request.js";
import { vendorProfiles } from "./adapters/openai-compatible/vendor-profiles.js";
import { chatRequestLog } from "./request-log/request-bodies.js";
import { requestLogOf } from "./request-log/request-log.js";
import { estimatePromptTokens } from "./usage/token-estimate.js";

// Router translates, estimates and logs each request in one synchronous run of its event loop,
// so work that grows faster than the request stalls every other tenant's calls. Each request
// here is the worst shape known for one of them, timed at n and 10n items.

const times = <T>(count: number, item: (index: number) => T) =>
  Array.from({ length: count }, (_, index) => item(index));
const message = (role: string, extra: Partial<Message> = {}): Message => ({ role, parts: [], toolCalls: [], ...extra });

const request = (messages: Message[]): ChatRequest => ({
  caller: undefined,
  model: "m",
  anthropicBeta: [],
  anthropicExtraJson: "",
  messages,
  tools: [],
  stop: [],
  stream: false,
  includeUsage: false,
  extraJson: "",
});

/** One assistant turn of n parallel calls, then n tool results: Gemini and Anthropic gather the results in one turn. */
const parallelCalls = (size: number) =>
  request([
    message("user", { text: "go" }),
    message("assistant", {
      toolCalls: times(size, (index) => ({ id: `c${index}`, name: "f", arguments: '{"a":1}' })),
    }),
    ...times(size, (index) => message("tool", { text: '{"ok":true}', toolCallId: `c${index}` })),
  ]);

/** Consecutive user messages of many parts each, which Anthropic merges into one turn. */
const manyParts = (size: number) =>
  request(times(10, () => message("user", { parts: times(size / 10, () => ({ text: "a" })) })));

const model = { id: "m", capabilities: [], channels: [] } as unknown as CatalogueModel;
const caller = { logCapture: LogCapture.LOG_CAPTURE_FULL } as Caller;
const logSettings = { capture: LogCapture.LOG_CAPTURE_FULL, maxBytes: 64 * 1024 };
const noImages = async () => {
  throw new Error("no images here");
};

const translators: Record<string, (request: ChatRequest) => unknown> = {
  "to OpenAI": (request) => toOpenAIRequest(request, model, vendorProfiles.deepseek!),
  "to Anthropic": (request) => toAnthropicRequest(request, model),
  "to Gemini": (request) => toGeminiRequest(request, noImages),
  "token estimate": (request) => estimatePromptTokens(request, model),
  "request log": (request) => requestLogOf(logSettings, caller, { request: () => chatRequestLog(request) }),
};

const shapes: Record<string, { size: number; build: (size: number) => ChatRequest }> = {
  "parallel calls and their results": { size: 10_000, build: parallelCalls },
  "user messages of many parts": { size: 20_000, build: manyParts },
};

const cases = Object.entries(translators).flatMap(([translator, work]) =>
  Object.entries(shapes).map(([shape, { size, build }]) => ({ name: `${translator}: ${shape}`, size, build, work })),
);

describe("router's request translation", () => {
  it.each(cases)("grows linearly with the request: $name", async ({ size, build, work }) => {
    const growth = await tenfoldGrowth(build, work, size);
    expect(superLinear(growth), JSON.stringify(growth)).toBe(false);
  });
});
