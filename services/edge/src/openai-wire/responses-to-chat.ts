import type { Caller } from "@gateway/proto/common/v1/common";
import type { ChatRequest, ContentPart, Message, ToolCall, ToolChoice } from "@gateway/proto/router/v1/chat";
import { customToolArguments } from "./custom-tool-input.js";
import { thinkingOfEncryptedReasoning } from "./encrypted-reasoning.js";
import type { ResponsesInputItem, ResponsesRequestBody } from "./responses-request-schema.js";
import type { ResponsesTool } from "./responses-tool-schema.js";
import { type ChatTools, toChatTools, toolSearchFunction } from "./responses-tools-to-chat.js";

// The Responses API served by chat models: its input items become canonical chat messages.

type MessageItem = Extract<ResponsesInputItem, { role: string }>;
type ToolOutput = Extract<ResponsesInputItem, { type: "function_call_output" }>["output"];

function toMessageContent(content: MessageItem["content"] | ToolOutput): Pick<Message, "text" | "parts"> {
  if (typeof content === "string") return { text: content, parts: [] };
  const parts = content.map(
    (part): ContentPart =>
      part.type === "input_image" ? { imageUrl: { url: part.image_url, detail: part.detail } } : { text: part.text },
  );
  return { text: undefined, parts };
}

const reasoningText = (item: Extract<ResponsesInputItem, { type: "reasoning" }>) =>
  [...item.summary, ...(item.content ?? [])].map((part) => part.text).join("");

const toolResult = (callId: string, content: Pick<Message, "text" | "parts">): Message => ({
  role: "tool",
  ...content,
  toolCalls: [],
  toolCallId: callId,
});

const loadedToolNames = (tools: readonly ResponsesTool[]) =>
  tools.map((tool) => ("name" in tool && typeof tool.name === "string" ? tool.name : tool.type)).join(", ");

// Call items, sent back by the client or kept in a stored response's output alike.
type CallItem =
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "custom_tool_call"; call_id: string; name: string; input: string }
  | { type: "tool_search_call"; call_id: string; arguments: Record<string, unknown> };

const isCall = (item: ResponsesInputItem): item is Extract<ResponsesInputItem, CallItem> =>
  item.type === "function_call" || item.type === "custom_tool_call" || item.type === "tool_search_call";

/** The call an item stands for, as the chat function the model called. */
export function callOf(item: CallItem): ToolCall {
  if (item.type === "function_call") return { id: item.call_id, name: item.name, arguments: item.arguments };
  if (item.type === "custom_tool_call") {
    return { id: item.call_id, name: item.name, arguments: customToolArguments(item.input) };
  }
  return { id: item.call_id, name: toolSearchFunction, arguments: JSON.stringify(item.arguments) };
}

/** Claude's thinking goes first among the assistant turn's parts, as Claude wants it back. */
export function withThinking(message: Message, thinking: ContentPart[]): Message {
  if (thinking.length === 0) return message;
  const said = message.text !== undefined ? [{ text: message.text }] : message.parts;
  return { ...message, text: undefined, parts: [...thinking, ...said.filter((part) => part.text !== "")] };
}

/**
 * Input items as chat messages; consecutive calls join one assistant turn, as chat vendors
 * expect, and a reasoning item becomes the reasoning of the assistant turn after it: its text,
 * and the signed thinking its encrypted_content carries (encrypted-reasoning.ts).
 */
export function itemsToMessages(input: ResponsesRequestBody["input"]): Message[] {
  const messages: Message[] = [];
  let reasoning: string | undefined;
  let thinking: ContentPart[] = [];
  const assistant = (message: Message) => {
    messages.push(withThinking(reasoning ? { ...message, reasoningContent: reasoning } : message, thinking));
    reasoning = undefined;
    thinking = [];
  };
  for (const item of input) {
    if (isCall(item)) {
      const call = callOf(item);
      const last = messages.at(-1);
      if (last?.role === "assistant" && reasoning === undefined && thinking.length === 0) last.toolCalls.push(call);
      else assistant({ role: "assistant", parts: [], toolCalls: [call] });
    } else if (item.type === "reasoning") {
      // OpenAI's own reasoning items often carry no text (only encrypted_content): nothing to pass on.
      const text = reasoningText(item);
      if (text !== "") reasoning = (reasoning ?? "") + text;
      thinking.push(...thinkingOfEncryptedReasoning(item.encrypted_content).map((block) => ({ thinking: block })));
    } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      messages.push(toolResult(item.call_id, toMessageContent(item.output)));
    } else if (item.type === "tool_search_output") {
      const text = `Tools found, which can be called now: ${loadedToolNames(item.tools) || "none"}.`;
      messages.push(toolResult(item.call_id, { text, parts: [] }));
    } else if (item.type === "additional_tools") {
      // Its tools join the request's (chatToolsOf); the item itself says nothing to the model.
    } else if (item.role === "assistant") {
      assistant({ role: item.role, ...toMessageContent(item.content), toolCalls: [] });
    } else {
      // Developer messages instruct as system ones do, in place; not every vendor knows the role.
      const role = item.role === "developer" ? "system" : item.role;
      messages.push({ role, ...toMessageContent(item.content), toolCalls: [] });
    }
  }
  return messages;
}

/** The request's tools and those its input adds (tool search results, additional_tools), as chat tools. */
export function chatToolsOf(body: ResponsesRequestBody): ChatTools {
  const loaded = body.input.flatMap((item) =>
    item.type === "tool_search_output" || item.type === "additional_tools" ? item.tools : [],
  );
  return toChatTools([...(body.tools ?? []), ...loaded]);
}

/**
 * A tool chosen by name is the chat function of that name; an allowed_tools choice keeps its
 * mode (every tool stays offered); a choice of a tool that was left out cannot be honoured, so
 * the model chooses.
 */
function toToolChoice(choice: ResponsesRequestBody["tool_choice"], tools: ChatTools): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { mode: choice };
  if ((choice.type === "function" || choice.type === "custom") && "name" in choice && typeof choice.name === "string") {
    return { mode: "function", functionName: choice.name };
  }
  if ("mode" in choice && typeof choice.mode === "string") return { mode: choice.mode };
  if (choice.type === "tool_search" && tools.kinds.has(toolSearchFunction)) {
    return { mode: "function", functionName: toolSearchFunction };
  }
  return { mode: "auto" };
}

/** Responses' flat json_schema format is chat's `response_format.json_schema`. */
function toResponseFormat(body: ResponsesRequestBody): ChatRequest["responseFormat"] {
  const format = body.text?.format;
  if (!format) return undefined;
  if (format.type !== "json_schema") return { type: format.type };
  const { type: _type, ...jsonSchema } = format;
  return { type: "json_schema", jsonSchemaJson: JSON.stringify(jsonSchema) };
}

/** Fields chat passes to the vendors that understand them (chat-request-schema's passThroughFields). */
function passedThrough(body: ResponsesRequestBody): string {
  const fields = {
    verbosity: body.text?.verbosity ?? undefined,
    prompt_cache_key: body.prompt_cache_key ?? undefined,
    safety_identifier: body.safety_identifier ?? undefined,
  };
  return Object.values(fields).some((value) => value !== undefined) ? JSON.stringify(fields) : "";
}

/**
 * The canonical chat request for a Responses body. `history` is the stored conversation
 * of `previous_response_id`; instructions are not part of it, as OpenAI does not carry them over.
 */
export function responsesToChat(
  body: ResponsesRequestBody,
  caller: Caller,
  history: Message[],
  tools: ChatTools = chatToolsOf(body),
): ChatRequest {
  const system: Message[] = body.instructions
    ? [{ role: "system", text: body.instructions, parts: [], toolCalls: [] }]
    : [];
  return {
    caller,
    model: body.model,
    messages: [...system, ...history, ...itemsToMessages(body.input)],
    tools: tools.tools,
    toolChoice: toToolChoice(body.tool_choice, tools),
    parallelToolCalls: body.parallel_tool_calls ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    maxTokens: body.max_output_tokens ?? undefined,
    reasoningEffort: body.reasoning?.effort ?? undefined,
    stop: [],
    responseFormat: toResponseFormat(body),
    stream: body.stream ?? false,
    // The terminal event carries usage, so a stream always asks for it.
    includeUsage: body.stream ?? false,
    user: body.user,
    extraJson: passedThrough(body),
    clientEndpoint: "/v1/responses",
    anthropicBeta: [],
    anthropicExtraJson: "",
  };
}
