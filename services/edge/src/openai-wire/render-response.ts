import { randomUUID } from "node:crypto";
import type { AssistantMessage, ChatCompletion, Message, ToolCall, Usage } from "@gateway/proto/router/v1/chat";
import type { ResponsesRequestBody } from "./responses-request-schema.js";

// Canonical chat answers rendered as OpenAI's Responses `response` object.
// https://platform.openai.com/docs/api-reference/responses/object

export const newItemId = (prefix: "resp" | "msg" | "fc" | "rs") => `${prefix}_${randomUUID().replaceAll("-", "")}`;

export type ItemStatus = "in_progress" | "completed" | "incomplete";

export const messageItem = (id: string, text: string, status: ItemStatus) => ({
  type: "message" as const,
  id,
  role: "assistant" as const,
  status,
  content: text === "" && status === "in_progress" ? [] : [outputTextPart(text)],
});

export const outputTextPart = (text: string) => ({ type: "output_text" as const, text, annotations: [] });

export const functionCallItem = (id: string, call: ToolCall, status: ItemStatus) => ({
  type: "function_call" as const,
  id,
  call_id: call.id,
  name: call.name,
  arguments: call.arguments,
  status,
});

export const summaryTextPart = (text: string) => ({ type: "summary_text" as const, text });

/**
 * The vendor's thinking text (DeepSeek's reasoning_content, Claude's thinking, Gemini's thoughts)
 * as a reasoning item's summary: the part of a reasoning item that Responses clients show.
 */
export const reasoningItem = (id: string, text: string) => ({
  type: "reasoning" as const,
  id,
  summary: text === "" ? [] : [summaryTextPart(text)],
});

export type OutputItem =
  | ReturnType<typeof messageItem>
  | ReturnType<typeof functionCallItem>
  | ReturnType<typeof reasoningItem>;

/** What a response echoes of its request, with OpenAI's defaults filled in. */
export function responseSettings(body: ResponsesRequestBody) {
  return {
    instructions: body.instructions ?? null,
    tools: (body.tools ?? []).map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? true,
    })),
    tool_choice: body.tool_choice ?? "auto",
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    max_output_tokens: body.max_output_tokens ?? null,
    previous_response_id: body.previous_response_id ?? null,
    store: body.store ?? true,
    metadata: body.metadata ?? {},
    text: { format: body.text?.format ?? { type: "text" } },
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
  };
}

/** The parts of a response fixed when it starts. */
export interface ResponseBase {
  id: string;
  createdAt: number;
  model: string;
  settings: ReturnType<typeof responseSettings>;
}

export function renderResponseUsage(usage: Usage | undefined) {
  if (!usage) return null;
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
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
    usage: renderResponseUsage(state.usage),
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
export function outputItems(message: AssistantMessage | undefined, status: ResponseStatus): OutputItem[] {
  const { content: text = "", toolCalls = [], reasoningContent } = message ?? {};
  const itemStatus = status === "incomplete" ? "incomplete" : "completed";
  const items: OutputItem[] = [];
  if (reasoningContent) items.push(reasoningItem(newItemId("rs"), reasoningContent));
  if (text !== "" || toolCalls.length === 0) items.push(messageItem(newItemId("msg"), text, itemStatus));
  for (const call of toolCalls) items.push(functionCallItem(newItemId("fc"), call, "completed"));
  return items;
}

export function completionToResponse(base: ResponseBase, completion: ChatCompletion): RenderedResponse {
  const choice = completion.choices[0];
  const status = statusOf(choice?.finishReason);
  const output = outputItems(choice?.message, status);
  return renderResponse(base, { status, output, usage: completion.usage, finishReason: choice?.finishReason });
}

/**
 * The assistant's turn of a response, to continue the conversation from with previous_response_id.
 * Its reasoning goes along: DeepSeek and Kimi want it back on a turn that called tools.
 */
export function assistantTurn(output: OutputItem[]): Message {
  const reasoning = output.flatMap((item) => (item.type === "reasoning" ? item.summary.map((part) => part.text) : []));
  const text = output
    .flatMap((item) => (item.type === "message" ? item.content.map((part) => part.text) : []))
    .join("");
  const toolCalls = output.flatMap((item) =>
    item.type === "function_call" ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : [],
  );
  return {
    role: "assistant",
    text: text === "" && toolCalls.length > 0 ? undefined : text,
    parts: [],
    toolCalls,
    ...(reasoning.length > 0 && { reasoningContent: reasoning.join("") }),
  };
}
