import { randomUUID } from "node:crypto";
import type {
  AssistantMessage,
  ChatCompletion,
  ContentPart,
  Message,
  ThinkingBlock,
  ToolCall,
  Usage,
} from "@gateway/proto/router/v1/chat";
import { customToolInput } from "./custom-tool-input.js";
import { encryptedReasoning } from "./encrypted-reasoning.js";
import type { ResponsesRequestBody } from "./responses-request-schema.js";
import { callOf, withThinking } from "./responses-to-chat.js";
import type { CallKind, ChatFunction, ToolKinds } from "./responses-tools-to-chat.js";

// Canonical chat answers rendered as OpenAI's Responses `response` object.
// https://platform.openai.com/docs/api-reference/responses/object

export const newItemId = (prefix: "resp" | "msg" | "fc" | "ctc" | "tsc" | "rs") =>
  `${prefix}_${randomUUID().replaceAll("-", "")}`;

export type ItemStatus = "in_progress" | "completed" | "incomplete";

export const messageItem = (id: string, text: string, status: ItemStatus) => ({
  type: "message" as const,
  id,
  role: "assistant" as const,
  status,
  content: text === "" && status === "in_progress" ? [] : [outputTextPart(text)],
});

// OpenAI sends logprobs on every text part (empty unless asked for), and its schema requires them.
export const outputTextPart = (text: string) => ({
  type: "output_text" as const,
  text,
  annotations: [],
  logprobs: [],
});

const functionCallItem = (id: string, call: ToolCall, status: ItemStatus, namespace?: string) => ({
  type: "function_call" as const,
  id,
  call_id: call.id,
  ...(namespace !== undefined && { namespace }),
  name: call.name,
  arguments: call.arguments,
  status,
});

/** A freeform tool's call: the input is the text the model wrote, out of its one-string arguments. */
const customToolCallItem = (id: string, call: ToolCall, status: ItemStatus, namespace?: string) => ({
  type: "custom_tool_call" as const,
  id,
  call_id: call.id,
  ...(namespace !== undefined && { namespace }),
  name: call.name,
  input: customToolInput(call.arguments),
  status,
});

/** A tool search for the client to run, with the model's arguments as an object (OpenAI's shape). */
const toolSearchCallItem = (id: string, call: ToolCall, status: ItemStatus) => ({
  type: "tool_search_call" as const,
  id,
  call_id: call.id,
  execution: "client" as const,
  arguments: argumentsObject(call.arguments),
  status,
});

function argumentsObject(argumentsJson: string): Record<string, unknown> {
  if (argumentsJson === "") return {};
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // The model's arguments were not an object: the client gets them as the query.
  }
  return { query: argumentsJson };
}

export const itemIdPrefix: Record<CallKind, "fc" | "ctc" | "tsc"> = {
  function: "fc",
  custom: "ctc",
  tool_search: "tsc",
};

/** A call of the model's, as the item type the client defined the tool with. */
export function callItem(called: ChatFunction, id: string, call: ToolCall, status: ItemStatus) {
  if (called.kind === "custom") return customToolCallItem(id, call, status, called.namespace);
  if (called.kind === "tool_search") return toolSearchCallItem(id, call, status);
  return functionCallItem(id, call, status, called.namespace);
}

export const summaryTextPart = (text: string) => ({ type: "summary_text" as const, text });

/**
 * The vendor's thinking text (DeepSeek's reasoning_content, Claude's thinking, Gemini's thoughts)
 * as a reasoning item's summary: the part of a reasoning item that Responses clients show.
 */
export const reasoningItem = (id: string, text: string, encryptedContent?: string) => ({
  type: "reasoning" as const,
  id,
  summary: text === "" ? [] : [summaryTextPart(text)],
  ...(encryptedContent !== undefined && { encrypted_content: encryptedContent }),
});

export type OutputItem =
  | ReturnType<typeof messageItem>
  | ReturnType<typeof callItem>
  | ReturnType<typeof reasoningItem>;

/** What a response echoes of its request, with OpenAI's defaults filled in. */
export function responseSettings(body: ResponsesRequestBody) {
  return {
    instructions: body.instructions ?? null,
    // Every tool as the client defined it, left-out ones included, as OpenAI echoes them.
    tools: (body.tools ?? []).map((tool) =>
      tool.type === "function"
        ? {
            type: "function",
            name: tool.name,
            description: tool.description ?? null,
            parameters: tool.parameters ?? null,
            strict: tool.strict ?? true,
          }
        : tool,
    ),
    tool_choice: body.tool_choice ?? "auto",
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    max_output_tokens: body.max_output_tokens ?? null,
    previous_response_id: body.previous_response_id ?? null,
    store: body.store ?? true,
    metadata: body.metadata ?? {},
    text: {
      format: body.text?.format ?? { type: "text" },
      ...(body.text?.verbosity && { verbosity: body.text.verbosity }),
    },
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: summaryAsked(body) },
  };
}

const summaryAsked = (body: ResponsesRequestBody) =>
  body.reasoning?.summary && body.reasoning.summary !== "none" ? body.reasoning.summary : null;

/** The parts of a response fixed when it starts. */
export interface ResponseBase {
  id: string;
  createdAt: number;
  model: string;
  settings: ReturnType<typeof responseSettings>;
  /** What each chat function the model may call stands for in the client's tools. */
  toolKinds: ToolKinds;
  /** The client asked for reasoning items to carry what the vendor needs back (`include`). */
  encryptedReasoning: boolean;
}

export const asksForEncryptedReasoning = (body: ResponsesRequestBody) =>
  body.include?.includes("reasoning.encrypted_content") ?? false;

/** What the chat function the model called stands for; a name the request did not define is a function. */
export const calledFunction = (base: ResponseBase, name: string): ChatFunction =>
  base.toolKinds.get(name) ?? { kind: "function" };

/** What a reasoning item carries of the vendor's signed thinking, when the client asked. */
export const encryptedContentOf = (base: ResponseBase, blocks: readonly ThinkingBlock[]) =>
  base.encryptedReasoning ? encryptedReasoning(blocks) : undefined;

export function renderResponseUsage(usage: Usage) {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: {
      cached_tokens: usage.cachedTokens ?? 0,
      cache_write_tokens: usage.cacheCreationTokens ?? 0,
    },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.totalTokens,
  };
}

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

export function renderResponse(
  base: ResponseBase,
  state: {
    status: ResponseStatus;
    output: OutputItem[];
    usage?: Usage;
    error?: { code: string; message: string };
    finishReason?: string;
  },
) {
  return {
    id: base.id,
    object: "response" as const,
    created_at: base.createdAt,
    status: state.status,
    model: base.model,
    output: state.output,
    // OpenAI's schema has usage as an object or absent, never null: it is absent until the end.
    ...(state.usage && { usage: renderResponseUsage(state.usage) }),
    error: state.error ?? null,
    incomplete_details: state.status === "incomplete" ? { reason: incompleteReason(state.finishReason) } : null,
    ...base.settings,
  };
}

export type RenderedResponse = ReturnType<typeof renderResponse>;

/** A chat finish reason as the response's status: a length cut or a filtered answer leaves it incomplete. */
export const statusOf = (finishReason: string | undefined): ResponseStatus =>
  finishReason === "length" || finishReason === "content_filter" ? "incomplete" : "completed";

/** Why a response is incomplete, in the Responses API's words. */
const incompleteReason = (finishReason: string | undefined) =>
  finishReason === "content_filter" ? "content_filter" : "max_output_tokens";

/** The output items of a finished answer: its reasoning, its text as a message, then each tool call. */
export function outputItems(
  base: ResponseBase,
  message: AssistantMessage | undefined,
  status: ResponseStatus,
): OutputItem[] {
  const { content: text = "", toolCalls = [], reasoningContent = "", thinkingBlocks = [] } = message ?? {};
  const itemStatus = status === "incomplete" ? "incomplete" : "completed";
  const items: OutputItem[] = [];
  const encrypted = encryptedContentOf(base, thinkingBlocks);
  if (reasoningContent !== "" || encrypted) items.push(reasoningItem(newItemId("rs"), reasoningContent, encrypted));
  if (text !== "" || toolCalls.length === 0) items.push(messageItem(newItemId("msg"), text, itemStatus));
  for (const call of toolCalls) {
    const called = calledFunction(base, call.name);
    items.push(callItem(called, newItemId(itemIdPrefix[called.kind]), call, "completed"));
  }
  return items;
}

export function completionToResponse(base: ResponseBase, completion: ChatCompletion): RenderedResponse {
  const choice = completion.choices[0];
  const status = statusOf(choice?.finishReason);
  const output = outputItems(base, choice?.message, status);
  return renderResponse(base, { status, output, usage: completion.usage, finishReason: choice?.finishReason });
}

/**
 * The assistant's turn of a response, to continue the conversation from with previous_response_id.
 * Its reasoning goes along: DeepSeek and Kimi want it back on a turn that called tools, and Claude
 * its signed thinking, kept whether or not the client was shown it (`include`).
 */
export function assistantTurn(output: OutputItem[], signedThinking: readonly ThinkingBlock[]): Message {
  const reasoning = output.flatMap((item) => (item.type === "reasoning" ? item.summary.map((part) => part.text) : []));
  const text = output
    .flatMap((item) => (item.type === "message" ? item.content.map((part) => part.text) : []))
    .join("");
  const toolCalls = output.flatMap((item) =>
    item.type === "message" || item.type === "reasoning" ? [] : [callOf(item)],
  );
  const turn: Message = {
    role: "assistant",
    text: text === "" && toolCalls.length > 0 ? undefined : text,
    parts: [],
    toolCalls,
    ...(reasoning.length > 0 && { reasoningContent: reasoning.join("") }),
  };
  return withThinking(
    turn,
    signedThinking.map((block): ContentPart => ({ thinking: block })),
  );
}
