import type { Caller } from "@gateway/proto/common/v1/common";
import type { ChatRequest, ContentPart, Message, Tool, ToolChoice } from "@gateway/proto/router/v1/chat";
import { type ChatMessageBody, type ChatRequestBody, passThroughFields } from "./chat-request-schema.js";

type PartBody =
  | { type: "text"; text: string; cache_control?: { type: string; ttl?: string | undefined } | null | undefined }
  | { type: "image_url"; image_url: { url: string; detail?: string } };

const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

function toParts(content: string | PartBody[] | null | undefined): Pick<Message, "text" | "parts"> {
  if (typeof content === "string") return { text: content, parts: [] };
  const parts = (content ?? []).map(
    (part): ContentPart =>
      part.type === "text"
        ? { text: part.text, ...(part.cache_control && { cacheControl: { ...part.cache_control } }) }
        : { imageUrl: { url: part.image_url.url, detail: part.image_url.detail } },
  );
  return { text: undefined, parts };
}

// Legacy function calls carry no ids; the gateway names them so vendors can pair results.
const legacyCallId = (index: number) => `call_function_${index}`;

/** Where each function's latest legacy call so far was made, by function name. */
type LatestCalls = Map<string, number>;

function toMessage(message: ChatMessageBody, index: number, latestCalls: LatestCalls): Message {
  if (message.role === "function") {
    return {
      role: "tool",
      text: message.content ?? "",
      parts: [],
      toolCalls: [],
      // A `function` result answers the latest earlier assistant call of that function.
      toolCallId: legacyCallId(latestCalls.get(message.name) ?? index),
    };
  }
  const base: Message = { role: message.role, ...toParts(message.content), toolCalls: [] };
  if ("name" in message && message.name !== undefined) base.name = message.name;
  if (message.role === "tool") base.toolCallId = message.tool_call_id;
  if (message.role === "assistant") {
    base.toolCalls = (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    }));
    if (message.function_call) base.toolCalls.push({ id: legacyCallId(index), ...message.function_call });
    base.reasoningContent = message.reasoning_content ?? undefined;
    return withThinking(base, message.thinking_blocks ?? []);
  }
  return base;
}

type ThinkingBlockBody = NonNullable<Extract<ChatMessageBody, { role: "assistant" }>["thinking_blocks"]>[number];

/** Claude's thinking blocks go first among the assistant turn's parts, as Claude wants them back. */
function withThinking(message: Message, blocks: ThinkingBlockBody[]): Message {
  if (blocks.length === 0) return message;
  const thinking = blocks.map(
    (block): ContentPart => ({
      thinking:
        block.type === "thinking"
          ? { thinking: block.thinking, signature: block.signature }
          : { thinking: "", redactedData: block.data },
    }),
  );
  const said = message.text !== undefined ? [{ text: message.text }] : message.parts;
  return { ...message, text: undefined, parts: [...thinking, ...said.filter((part) => part.text !== "")] };
}

/** The messages in order, noting each legacy call as it passes so its result finds it without a search. */
function toMessages(messages: ChatMessageBody[]): Message[] {
  const latestCalls: LatestCalls = new Map();
  return messages.map((message, index) => {
    const converted = toMessage(message, index, latestCalls);
    if (message.role === "assistant" && message.function_call) latestCalls.set(message.function_call.name, index);
    return converted;
  });
}

function toToolChoice(body: ChatRequestBody): ToolChoice | undefined {
  const choice = body.tool_choice ?? body.function_call;
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { mode: choice };
  return { mode: "function", functionName: "function" in choice ? choice.function.name : choice.name };
}

function toTools(body: ChatRequestBody): Tool[] {
  const definitions = body.functions ?? (body.tools ?? []).map((tool) => tool.function);
  return definitions.map((definition) => ({
    name: definition.name,
    description: definition.description,
    parametersJson: definition.parameters ? JSON.stringify(definition.parameters) : undefined,
    strict: "strict" in definition ? orUndefined(definition.strict as boolean | null | undefined) : undefined,
  }));
}

/** The client used the deprecated `functions` API and expects `function_call` answers. */
export const usesLegacyFunctions = (body: ChatRequestBody) => body.functions !== undefined;

function extraFields(body: ChatRequestBody): string {
  const extra: Record<string, unknown> = {};
  const fields = body as Record<string, unknown>;
  for (const field of passThroughFields) if (fields[field] !== undefined) extra[field] = fields[field];
  return Object.keys(extra).length > 0 ? JSON.stringify(extra) : "";
}

/** The validated OpenAI body in the gateway's canonical, typed form. */
export function toCanonicalChat(body: ChatRequestBody, caller: Caller): ChatRequest {
  const stop =
    body.stop === undefined || body.stop === null ? [] : typeof body.stop === "string" ? [body.stop] : body.stop;
  return {
    caller,
    model: body.model,
    messages: toMessages(body.messages),
    tools: toTools(body),
    toolChoice: toToolChoice(body),
    // The legacy API answers with at most one function call.
    parallelToolCalls: usesLegacyFunctions(body) ? false : body.parallel_tool_calls,
    temperature: orUndefined(body.temperature),
    topP: orUndefined(body.top_p),
    maxTokens: orUndefined(body.max_completion_tokens ?? body.max_tokens),
    n: orUndefined(body.n),
    stop,
    seed: orUndefined(body.seed),
    responseFormat: body.response_format && {
      type: body.response_format.type,
      jsonSchemaJson:
        "json_schema" in body.response_format ? JSON.stringify(body.response_format.json_schema) : undefined,
    },
    stream: body.stream ?? false,
    includeUsage: body.stream_options?.include_usage ?? false,
    presencePenalty: orUndefined(body.presence_penalty),
    frequencyPenalty: orUndefined(body.frequency_penalty),
    user: body.user,
    extraJson: extraFields(body),
    reasoningEffort: orUndefined(body.reasoning_effort),
    anthropicBeta: [],
    anthropicExtraJson: "",
  };
}
