import type { Caller } from "@gateway/proto/common/v1/common";
import type { ChatRequest, ContentPart, Message, Tool, ToolChoice } from "@gateway/proto/router/v1/chat";
import type { ResponsesInputItem, ResponsesRequestBody } from "./responses-request-schema.js";

// The Responses API served by chat models: its input items become canonical chat messages.

type MessageItem = Extract<ResponsesInputItem, { role: string }>;

function toMessageContent(content: MessageItem["content"]): Pick<Message, "text" | "parts"> {
  if (typeof content === "string") return { text: content, parts: [] };
  const parts = content.map(
    (part): ContentPart =>
      part.type === "input_image" ? { imageUrl: { url: part.image_url, detail: part.detail } } : { text: part.text },
  );
  return { text: undefined, parts };
}

const reasoningText = (item: Extract<ResponsesInputItem, { type: "reasoning" }>) =>
  [...item.summary, ...(item.content ?? [])].map((part) => part.text).join("");

/**
 * Input items as chat messages; consecutive function calls join one assistant turn, as chat
 * vendors expect, and a reasoning item becomes the reasoning of the assistant turn after it.
 */
export function itemsToMessages(input: ResponsesRequestBody["input"]): Message[] {
  const messages: Message[] = [];
  let reasoning: string | undefined;
  const assistant = (message: Message) => {
    messages.push(reasoning ? { ...message, reasoningContent: reasoning } : message);
    reasoning = undefined;
  };
  for (const item of input) {
    if (item.type === "reasoning") {
      // OpenAI's own reasoning items often carry no text (only encrypted_content): nothing to pass on.
      const text = reasoningText(item);
      if (text !== "") reasoning = (reasoning ?? "") + text;
    } else if (item.type === "function_call") {
      const call = { id: item.call_id, name: item.name, arguments: item.arguments };
      const last = messages.at(-1);
      if (last?.role === "assistant" && reasoning === undefined) last.toolCalls.push(call);
      else assistant({ role: "assistant", parts: [], toolCalls: [call] });
    } else if (item.type === "function_call_output") {
      messages.push({ role: "tool", text: item.output, parts: [], toolCalls: [], toolCallId: item.call_id });
    } else if (item.role === "assistant") {
      assistant({ role: item.role, ...toMessageContent(item.content), toolCalls: [] });
    } else {
      messages.push({ role: item.role, ...toMessageContent(item.content), toolCalls: [] });
    }
  }
  return messages;
}

function toTools(body: ResponsesRequestBody): Tool[] {
  return (body.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description ?? undefined,
    parametersJson: tool.parameters ? JSON.stringify(tool.parameters) : undefined,
    strict: tool.strict ?? undefined,
  }));
}

function toToolChoice(choice: ResponsesRequestBody["tool_choice"]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { mode: choice };
  return { mode: "function", functionName: choice.name };
}

/** Responses' flat json_schema format is chat's `response_format.json_schema`. */
function toResponseFormat(body: ResponsesRequestBody): ChatRequest["responseFormat"] {
  const format = body.text?.format;
  if (!format) return undefined;
  if (format.type !== "json_schema") return { type: format.type };
  const { type: _type, ...jsonSchema } = format;
  return { type: "json_schema", jsonSchemaJson: JSON.stringify(jsonSchema) };
}

/**
 * The canonical chat request for a Responses body. `history` is the stored conversation
 * of `previous_response_id`; instructions are not part of it, as OpenAI does not carry them over.
 */
export function responsesToChat(body: ResponsesRequestBody, caller: Caller, history: Message[]): ChatRequest {
  const system: Message[] = body.instructions
    ? [{ role: "system", text: body.instructions, parts: [], toolCalls: [] }]
    : [];
  return {
    caller,
    model: body.model,
    messages: [...system, ...history, ...itemsToMessages(body.input)],
    tools: toTools(body),
    toolChoice: toToolChoice(body.tool_choice),
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
    extraJson: "",
    clientEndpoint: "/v1/responses",
    anthropicBeta: [],
    anthropicExtraJson: "",
  };
}
