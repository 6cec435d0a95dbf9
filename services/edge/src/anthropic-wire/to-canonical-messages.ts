import type { Caller } from "@gateway/proto/common/v1/common";
import type {
  CacheControl,
  ChatRequest,
  ContentPart,
  Document,
  Message,
  Tool,
  ToolChoice,
} from "@gateway/proto/router/v1/chat";
import type {
  ContentBlockBody,
  CountTokensRequestBody,
  MessageBody,
  MessagesRequestBody,
  ToolBody,
} from "./messages-request-schema.js";
import { isCustomTool } from "./messages-request-schema.js";

// An Anthropic Messages request in the gateway's canonical form. Everything Claude needs back
// survives (thinking signatures, cache breakpoints, documents), so a Claude model receives the
// request as it was sent; other vendors' adapters translate the same canonical form.

type Block<Type extends ContentBlockBody["type"]> = Extract<ContentBlockBody, { type: Type }>;
type CacheControlBody = { type: string; ttl?: string | undefined; scope?: string | undefined } | null | undefined;

const cacheControlOf = (control: CacheControlBody): CacheControl | undefined =>
  control ? { type: control.type, ttl: control.ttl, scope: control.scope } : undefined;

function documentOf(block: Block<"document">): Document {
  const { source } = block;
  const common = { title: block.title ?? undefined, context: block.context ?? undefined };
  if (source.type === "url") return { sourceType: "url", data: source.url, ...common };
  return { sourceType: source.type, mediaType: source.media_type, data: source.data, ...common };
}

/** One text, image, document or thinking block as a canonical part (tool blocks are not parts). */
function partOf(block: ContentBlockBody): ContentPart | undefined {
  switch (block.type) {
    case "text":
      return { text: block.text, cacheControl: cacheControlOf(block.cache_control) };
    case "image": {
      const { source } = block;
      const url = source.type === "url" ? source.url : `data:${source.media_type};base64,${source.data}`;
      return { imageUrl: { url }, cacheControl: cacheControlOf(block.cache_control) };
    }
    case "document":
      return { document: documentOf(block), cacheControl: cacheControlOf(block.cache_control) };
    case "thinking":
      return { thinking: { thinking: block.thinking, signature: block.signature } };
    case "redacted_thinking":
      return { thinking: { thinking: "", redactedData: block.data } };
    default:
      return undefined;
  }
}

const partsOf = (blocks: ContentBlockBody[]) => blocks.flatMap((block) => partOf(block) ?? []);

/** A tool_result block as the canonical tool message that answers the call. */
function toolMessageOf(block: Block<"tool_result">): Message {
  const content = block.content ?? "";
  return {
    role: "tool",
    toolCallId: block.tool_use_id,
    ...(typeof content === "string" ? { text: content, parts: [] } : { text: undefined, parts: partsOf(content) }),
    toolCalls: [],
    isError: block.is_error,
    cacheControl: cacheControlOf(block.cache_control),
  };
}

/** A user turn: its tool results first (answering the previous turn's calls), then what the user says. */
function userMessages(blocks: ContentBlockBody[]): Message[] {
  const results = blocks.filter((block): block is Block<"tool_result"> => block.type === "tool_result");
  const parts = partsOf(blocks.filter((block) => block.type !== "tool_result"));
  const said: Message[] = parts.length > 0 ? [{ role: "user", parts, toolCalls: [] }] : [];
  return [...results.map(toolMessageOf), ...said];
}

/** An assistant turn; the thinking text also rides as reasoning_content for vendors that want it back. */
function assistantMessage(blocks: ContentBlockBody[]): Message {
  const parts = partsOf(blocks);
  const thinking = parts.flatMap((part) => (part.thinking?.thinking ? [part.thinking.thinking] : []));
  const toolCalls = blocks
    .filter((block): block is Block<"tool_use"> => block.type === "tool_use")
    .map((block) => ({
      id: block.id,
      name: block.name,
      arguments: JSON.stringify(block.input),
      cacheControl: cacheControlOf(block.cache_control),
    }));
  return {
    role: "assistant",
    parts,
    toolCalls,
    reasoningContent: thinking.length > 0 ? thinking.join("") : undefined,
  };
}

function toMessages(message: MessageBody): Message[] {
  if (typeof message.content === "string") {
    return [{ role: message.role, text: message.content, parts: [], toolCalls: [] }];
  }
  if (message.role === "system") return [{ role: "system", parts: partsOf(message.content), toolCalls: [] }];
  return message.role === "user" ? userMessages(message.content) : [assistantMessage(message.content)];
}

function systemMessages(system: MessagesRequestBody["system"]): Message[] {
  if (system === undefined) return [];
  if (typeof system === "string") return [{ role: "system", text: system, parts: [], toolCalls: [] }];
  return [{ role: "system", parts: partsOf(system), toolCalls: [] }];
}

function toolOf(tool: ToolBody): Tool {
  if (!isCustomTool(tool)) return { name: tool.name, anthropicToolJson: JSON.stringify(tool) };
  return {
    name: tool.name,
    description: tool.description,
    parametersJson: JSON.stringify(tool.input_schema),
    cacheControl: cacheControlOf(tool.cache_control),
  };
}

function toolChoiceOf(choice: MessagesRequestBody["tool_choice"]): ToolChoice | undefined {
  if (!choice) return undefined;
  if (choice.type === "tool") return { mode: "function", functionName: choice.name };
  return { mode: { auto: "auto", any: "required", none: "none" }[choice.type] };
}

const parallelToolCallsOf = (choice: MessagesRequestBody["tool_choice"]) =>
  choice && "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use ? false : undefined;

/**
 * A top-level cache_control marks the last cacheable block: the last message's last block (a
 * tool result, a tool call or a part), else the last tool.
 */
function markLastBlock(messages: Message[], tools: Tool[], control: CacheControl | undefined): void {
  if (!control) return;
  const last = messages.at(-1);
  if (last?.role === "tool") last.cacheControl = control;
  else if (last?.toolCalls.length) last.toolCalls.at(-1)!.cacheControl = control;
  else if (last?.text !== undefined)
    Object.assign(last, { text: undefined, parts: [{ text: last.text, cacheControl: control }] });
  else if (last?.parts.length) last.parts.at(-1)!.cacheControl = control;
  else if (tools.length > 0) tools.at(-1)!.cacheControl = control;
}

// What the canonical request models; every other top-level field only Claude understands.
const modelledFields = new Set(
  "model max_tokens messages system temperature top_p top_k stop_sequences stream tools tool_choice metadata thinking cache_control".split(
    " ",
  ),
);

/** The fields Claude gets as the client wrote them (output_config, context_management, betas' new fields). */
function claudeOnlyJson(body: Record<string, unknown>): string {
  const fields = Object.fromEntries(
    Object.entries(body).filter(([field, value]) => !modelledFields.has(field) && value != null),
  );
  return Object.keys(fields).length > 0 ? JSON.stringify(fields) : "";
}

/**
 * Claude's effort as the reasoning effort other vendors take. Only beside thinking: without it,
 * an effort would make a budget-thinking vendor start thinking the client never asked for.
 */
const reasoningEffortOf = (body: CountTokensRequestBody) =>
  body.thinking && body.thinking.type !== "disabled" ? body.output_config?.effort : undefined;

/** What a request and a count_tokens request share: the conversation, tools and thinking. */
function conversationOf(body: CountTokensRequestBody, caller: Caller, anthropicBeta: string[]) {
  const messages = [...systemMessages(body.system), ...body.messages.flatMap(toMessages)];
  const tools = (body.tools ?? []).map(toolOf);
  markLastBlock(messages, tools, cacheControlOf(body.cache_control));
  return {
    caller,
    model: body.model,
    messages,
    tools,
    toolChoice: toolChoiceOf(body.tool_choice),
    parallelToolCalls: parallelToolCallsOf(body.tool_choice),
    thinking: body.thinking && {
      type: body.thinking.type,
      budgetTokens: body.thinking.type === "enabled" ? body.thinking.budget_tokens : undefined,
    },
    reasoningEffort: reasoningEffortOf(body),
    anthropicBeta,
    anthropicExtraJson: claudeOnlyJson(body),
    clientEndpoint: "/v1/messages",
    stop: [],
    stream: false,
    includeUsage: false,
    extraJson: "",
  };
}

/**
 * The validated Messages body in canonical form. Temperature doubles: the canonical scale is
 * OpenAI's 0–2, which the Claude adapter halves back, so Claude gets exactly what was sent.
 */
export function messagesToCanonical(body: MessagesRequestBody, caller: Caller, anthropicBeta: string[]): ChatRequest {
  return {
    ...conversationOf(body, caller, anthropicBeta),
    temperature: body.temperature === undefined ? undefined : body.temperature * 2,
    topP: body.top_p,
    topK: body.top_k,
    maxTokens: body.max_tokens,
    stop: body.stop_sequences ?? [],
    stream: body.stream ?? false,
    // The closing message_delta reports usage, so a stream always asks for it.
    includeUsage: body.stream ?? false,
    user: body.metadata?.user_id ?? undefined,
  };
}

/** A count_tokens body in canonical form. */
export const countTokensToCanonical = (body: CountTokensRequestBody, caller: Caller, anthropicBeta: string[]) =>
  conversationOf(body, caller, anthropicBeta) satisfies ChatRequest;

/** The anthropic-beta header's comma-separated feature names. */
export const betaFeatures = (header: string | string[] | undefined): string[] =>
  [header ?? []]
    .flat()
    .flatMap((value) => value.split(","))
    .map((name) => name.trim())
    .filter((name) => name !== "")
    .slice(0, 32);
