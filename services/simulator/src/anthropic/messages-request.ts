import type { ConversationMessage, JsonOutput, ToolChoice, ToolDefinition } from "../answer.js";
import { isRecord } from "../json.js";
import { jsonInstructionOf } from "./json-instruction.js";
import { type ClaudeRules, claudeRules } from "./model-rules.js";
import { thinkingSignature } from "./thinking-signature.js";

/** An Anthropic Messages request, validated and translated to the simulator's neutral terms. */
export interface MessagesRequest {
  model: string;
  /** The system prompt (when given) first, then the turns; tool results become `tool` messages. */
  messages: ConversationMessage[];
  stream: boolean;
  maxTokens: number;
  stop: string[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  /** Asked for in the system prompt. */
  json: JsonOutput | undefined;
  /** Extended thinking is on. */
  thinking: boolean;
  /** Fast mode and the inference geography, as asked. */
  speed?: string;
  inferenceGeo?: string;
}

/** A request Anthropic would refuse with 400 invalid_request_error. */
export class MessagesRequestError extends Error {}

// Anthropic refuses fields it does not know ("Extra inputs are not permitted"), which catches
// OpenAI fields leaking through an adapter.
const knownFields = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "stream",
  "tools",
  "tool_choice",
  "metadata",
  "thinking",
  "service_tier",
  "container",
  "mcp_servers",
  "context_management",
  "output_config",
  "inference_geo",
  "speed",
  "cache_control",
]);
const imageMediaTypes = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);
const toolName = /^[a-zA-Z0-9_-]{1,128}$/;

const fail = (message: string) => new MessagesRequestError(message);

/** The fields of a count_tokens request: it has no max_tokens and nothing that shapes an answer. */
const countFields = new Set(["model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers"]);

/** A count_tokens request; checked as Anthropic checks a Messages request, without max_tokens. */
export function parseCountTokensRequest(body: unknown): MessagesRequest {
  if (isRecord(body)) {
    for (const field of Object.keys(body)) {
      if (!countFields.has(field)) throw fail(`${field}: Extra inputs are not permitted`);
    }
  }
  return parseMessagesRequest(isRecord(body) ? { ...body, max_tokens: 1_000_000 } : body);
}

export function parseMessagesRequest(body: unknown): MessagesRequest {
  if (body === undefined) throw fail("There was an error parsing the body of your request: it is not valid JSON.");
  if (!isRecord(body)) throw fail("The request body must be a JSON object.");
  for (const field of Object.keys(body))
    if (!knownFields.has(field)) throw fail(`${field}: Extra inputs are not permitted`);
  if (body.model === undefined) throw fail("model: Field required");
  if (typeof body.model !== "string" || body.model === "") throw fail("model: Input should be a non-empty string");
  const maxTokens = maxTokensOf(body.max_tokens);
  const rules = claudeRules(body.model);
  checkSampling(body);
  checkModelRules(rules, body);
  const tools = toolsOf(body.tools);
  const stream = body.stream ?? false;
  if (typeof stream !== "boolean") throw fail("stream: Input should be a valid boolean");
  const choice = toolChoiceOf(body.tool_choice, tools);
  const system = systemOf(body.system);
  const thinking = thinkingOf(body.thinking, maxTokens);
  return {
    model: body.model,
    messages: [...system, ...messagesOf(body.messages, thinking, rules)],
    stream,
    maxTokens,
    stop: stopOf(body.stop_sequences),
    tools,
    toolChoice: choice.choice,
    parallelToolCalls: choice.parallel,
    json: system[0] && jsonInstructionOf(system[0].parts.join("\n\n")),
    thinking,
    ...(typeof body.speed === "string" && { speed: body.speed }),
    ...(typeof body.inference_geo === "string" && { inferenceGeo: body.inference_geo }),
  };
}

function thinkingOf(value: unknown, maxTokens: number): boolean {
  if (value === undefined) return false;
  if (!isRecord(value)) throw fail("thinking: Input should be a valid dictionary");
  // between_tools: thinking only between tool calls, none before the first answer.
  if (value.type === "disabled" || value.type === "between_tools") return false;
  if (value.type === "adaptive") return true;
  if (value.type !== "enabled") {
    throw fail("thinking.type: Input should be 'enabled', 'disabled', 'adaptive' or 'between_tools'");
  }
  const budget = value.budget_tokens;
  if (!Number.isInteger(budget) || (budget as number) < 1024) {
    throw fail("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
  }
  if ((budget as number) >= maxTokens) throw fail("`max_tokens` must be greater than `thinking.budget_tokens`.");
  return true;
}

function maxTokensOf(value: unknown): number {
  if (value === undefined) throw fail("max_tokens: Field required");
  if (!Number.isInteger(value)) throw fail("max_tokens: Input should be a valid integer");
  if ((value as number) < 1) throw fail("max_tokens: Input should be greater than or equal to 1");
  return value as number;
}

function checkSampling(body: Record<string, unknown>): void {
  for (const field of ["temperature", "top_p"]) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== "number" || value < 0 || value > 1) throw fail(`${field}: Input should be between 0 and 1`);
  }
  // What Anthropic says for its Claude 4.1 and 4.5 models.
  if (body.temperature !== undefined && body.top_p !== undefined) {
    throw fail("`temperature` and `top_p` cannot both be specified for this model. Please use only one.");
  }
}

/** What this model refuses that others take: thinking types, sampling parameters, forced tools. */
function checkModelRules(rules: ClaudeRules, body: Record<string, unknown>): void {
  const type = isRecord(body.thinking) ? body.thinking.type : undefined;
  if (typeof type === "string" && rules.refusedThinking.has(type)) {
    throw fail(
      `"thinking.type.${type}" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`,
    );
  }
  if (rules.noSampling) {
    for (const field of ["temperature", "top_p", "top_k"]) {
      if (body[field] !== undefined) throw fail(`${field}: is not supported for this model.`);
    }
  }
  const choice = isRecord(body.tool_choice) ? body.tool_choice.type : undefined;
  if (rules.noForcedTools && (choice === "any" || choice === "tool")) {
    throw fail(
      `tool_choice.type: "${choice}" is not supported for this model: forced tool use is not available. Use "auto" or "none".`,
    );
  }
}

function stopOf(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string")) {
    throw fail("stop_sequences: Input should be a valid list of strings");
  }
  return value;
}

function systemOf(value: unknown): ConversationMessage[] {
  if (value === undefined) return [];
  if (typeof value === "string") return [{ role: "system", parts: [value], images: 0 }];
  if (!Array.isArray(value)) throw fail("system: Input should be a valid string or list of text blocks");
  const parts = value.map((block, index) => {
    if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") {
      throw fail(`system.${index}: Input should be a text block`);
    }
    if (block.text === "") throw fail("system: text content blocks must be non-empty");
    return block.text;
  });
  return [{ role: "system", parts, images: 0 }];
}

interface Turn {
  role: "user" | "assistant" | "system";
  blocks: Record<string, unknown>[];
}

function messagesOf(value: unknown, thinking: boolean, rules: ClaudeRules): ConversationMessage[] {
  if (value === undefined) throw fail("messages: Field required");
  if (!Array.isArray(value)) throw fail("messages: Input should be a valid list");
  if (value.length === 0) throw fail("messages: at least one message is required");
  const turns = value.map((message, index) => turnOf(message, index, rules));
  checkSystemPlacement(turns);
  if (rules.noPrefill && turns.at(-1)?.role === "assistant") {
    throw fail("This model does not support assistant message prefill. The conversation must end with a user message.");
  }
  checkToolPairs(turns);
  if (thinking) checkThinkingKept(turns);
  return turns.map(conversationOf);
}

/**
 * With thinking on, the assistant turn whose tool calls are being answered must come back
 * starting with its thinking, as Claude wrote it: Anthropic refuses the request otherwise.
 */
function checkThinkingKept(turns: Turn[]): void {
  const index = turns.findLastIndex((turn) => turn.role === "assistant");
  const turn = turns[index];
  if (!turn?.blocks.some((block) => block.type === "tool_use")) return;
  const first = turn.blocks[0]?.type;
  if (first !== "thinking" && first !== "redacted_thinking") {
    throw fail(
      `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`,
    );
  }
}

/** A mid-conversation system message follows a user turn, never opens the conversation. */
function checkSystemPlacement(turns: Turn[]): void {
  for (const [index, turn] of turns.entries()) {
    if (turn.role === "system" && turns[index - 1]?.role !== "user") {
      throw fail(`messages.${index}: a system message must immediately follow a user message`);
    }
  }
}

function systemTurnOf(content: unknown, index: number): Turn {
  if (typeof content === "string" && content !== "")
    return { role: "system", blocks: [{ type: "text", text: content }] };
  if (!Array.isArray(content) || content.length === 0) {
    throw fail(`messages.${index}.content: a system message takes a non-empty string or text blocks`);
  }
  for (const [position, block] of content.entries()) {
    if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") {
      throw fail(`messages.${index}.content.${position}: a system message takes text blocks only`);
    }
  }
  return { role: "system", blocks: content as Record<string, unknown>[] };
}

function turnOf(message: unknown, index: number, rules: ClaudeRules): Turn {
  if (!isRecord(message)) throw fail(`messages.${index}: Input should be a valid dictionary`);
  const role = message.role;
  if (role === "system" && rules.midConversationSystem) return systemTurnOf(message.content, index);
  if (role === "system") {
    throw fail(
      'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
    );
  }
  if (role !== "user" && role !== "assistant")
    throw fail(`messages.${index}.role: Input should be 'user' or 'assistant'`);
  const content = message.content;
  if (typeof content === "string") {
    if (content === "") {
      throw fail(
        `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    return { role, blocks: [{ type: "text", text: content }] };
  }
  if (!Array.isArray(content)) throw fail(`messages.${index}.content: Input should be a valid string or list`);
  return {
    role,
    blocks: content.map((block, position) => checkBlock(block, role, `messages.${index}.content.${position}`)),
  };
}

function checkBlock(block: unknown, role: Turn["role"], path: string): Record<string, unknown> {
  if (!isRecord(block) || typeof block.type !== "string") throw fail(`${path}: Input should be a valid content block`);
  switch (block.type) {
    case "text":
      if (typeof block.text !== "string") throw fail(`${path}.text: Field required`);
      if (block.text === "") throw fail("messages: text content blocks must be non-empty");
      return block;
    case "image":
      checkImageSource(block.source, `${path}.source`);
      return block;
    case "tool_use":
      if (role !== "assistant") throw fail(`${path}: tool_use blocks may only appear in assistant messages`);
      if (typeof block.id !== "string" || block.id === "") throw fail(`${path}.id: Field required`);
      if (typeof block.name !== "string" || !toolName.test(block.name)) throw fail(`${path}.name: Field required`);
      if (!isRecord(block.input)) throw fail(`${path}.input: Input should be a valid dictionary`);
      return block;
    case "tool_result":
      if (role !== "user") throw fail(`${path}: tool_result blocks may only appear in user messages`);
      if (typeof block.tool_use_id !== "string" || block.tool_use_id === "") {
        throw fail(`${path}.tool_use_id: Field required`);
      }
      checkToolResultContent(block.content, `${path}.content`);
      return block;
    case "thinking":
      if (typeof block.thinking !== "string" || block.signature !== thinkingSignature(block.thinking)) {
        throw fail(`${path}: Invalid \`signature\` in \`thinking\` block`);
      }
      return block;
    case "redacted_thinking":
    case "document":
      return block;
    default:
      throw fail(`${path}.type: Input tag '${block.type}' found using 'type' does not match any of the expected tags`);
  }
}

function checkImageSource(source: unknown, path: string): void {
  if (!isRecord(source)) throw fail(`${path}: Field required`);
  if (source.type === "base64") {
    if (typeof source.media_type !== "string" || !imageMediaTypes.has(source.media_type)) {
      throw fail(`${path}.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
    }
    if (typeof source.data !== "string" || source.data === "") throw fail(`${path}.data: Field required`);
  } else if (source.type === "url") {
    if (typeof source.url !== "string" || !/^https?:\/\//.test(source.url)) throw fail(`${path}.url: Invalid URL`);
  } else if (source.type !== "file") {
    throw fail(`${path}.type: Input should be 'base64', 'url' or 'file'`);
  }
}

function checkToolResultContent(content: unknown, path: string): void {
  if (content === undefined || typeof content === "string") return;
  if (!Array.isArray(content)) throw fail(`${path}: Input should be a valid string or list`);
  for (const [index, block] of content.entries()) checkBlock(block, "user", `${path}.${index}`);
}

const idsOf = (turn: Turn | undefined, type: string, field: string): string[] =>
  (turn?.blocks ?? []).filter((block) => block.type === type).map((block) => block[field] as string);

/** Every tool_use is answered by a tool_result in the very next (user) turn, and only those. */
function checkToolPairs(turns: Turn[]): void {
  for (const [index, turn] of turns.entries()) {
    if (turn.role === "assistant") {
      const answered = new Set(idsOf(turns[index + 1], "tool_result", "tool_use_id"));
      const missing = idsOf(turn, "tool_use", "id").filter((id) => !answered.has(id));
      if (missing.length > 0) {
        throw fail(
          `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    } else {
      const asked = new Set(idsOf(turns[index - 1], "tool_use", "id"));
      const unexpected = idsOf(turn, "tool_result", "tool_use_id").filter((id) => !asked.has(id));
      if (unexpected.length > 0) {
        throw fail(
          `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(", ")}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
  }
}

function textsOf(blocks: unknown[]): { parts: string[]; images: number } {
  const parts: string[] = [];
  let images = 0;
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "image") images += 1;
    else if (block.type === "tool_result") {
      const content = block.content;
      const nested =
        typeof content === "string" ? { parts: [content], images: 0 } : textsOf(Array.isArray(content) ? content : []);
      parts.push(...nested.parts);
      images += nested.images;
    }
  }
  return { parts, images };
}

/** A user turn that carries tool results reads as a `tool` message, which answer.ts answers in text. */
function conversationOf(turn: Turn): ConversationMessage {
  const hasResults = turn.blocks.some((block) => block.type === "tool_result");
  // Results first, as Anthropic requires, so the answer quotes the result rather than the user's text.
  return { role: hasResults ? "tool" : turn.role, ...textsOf(turn.blocks) };
}

function toolsOf(value: unknown): ToolDefinition[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw fail("tools: Input should be a valid list");
  const tools: ToolDefinition[] = [];
  for (const [index, tool] of value.entries()) {
    if (!isRecord(tool)) throw fail(`tools.${index}: Input should be a valid dictionary`);
    // Server tools (web_search_…, code_execution_…) carry a versioned type; the simulator only calls custom tools.
    if (tool.type !== undefined && tool.type !== "custom") continue;
    if (typeof tool.name !== "string" || !toolName.test(tool.name)) {
      throw fail(`tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
    }
    if (!isRecord(tool.input_schema)) throw fail(`tools.${index}.custom.input_schema: Field required`);
    if (tool.input_schema.type !== "object") {
      throw fail(`tools.${index}.custom.input_schema.type: Input should be 'object'`);
    }
    tools.push({ name: tool.name, parameters: tool.input_schema });
  }
  return tools;
}

function toolChoiceOf(value: unknown, tools: ToolDefinition[]): { choice: ToolChoice; parallel: boolean } {
  if (value === undefined) return { choice: "auto", parallel: true };
  if (!isRecord(value)) throw fail("tool_choice: Input should be a valid dictionary");
  const parallel = value.disable_parallel_tool_use !== true;
  switch (value.type) {
    case "auto":
      return { choice: "auto", parallel };
    case "any":
      return { choice: "required", parallel };
    case "none":
      return { choice: "none", parallel };
    case "tool":
      if (typeof value.name !== "string" || !tools.some((tool) => tool.name === value.name)) {
        throw fail(`tool_choice.tool.name: Tool '${String(value.name)}' not found in provided tools`);
      }
      return { choice: { name: value.name }, parallel };
    default:
      throw fail("tool_choice.type: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'");
  }
}
