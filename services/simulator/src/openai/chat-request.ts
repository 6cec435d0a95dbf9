import type { ConversationMessage, JsonOutput, ToolChoice, ToolDefinition } from "../answer.js";
import { isRecord } from "../json.js";
import { checkMoonshotRules } from "./moonshot-rules.js";
import { checkReasoningEffort } from "./reasoning-efforts.js";
import { checkXaiRules } from "./xai-rules.js";

/** An OpenAI chat request, validated and translated to the simulator's neutral terms. */
export interface ChatRequest {
  model: string;
  messages: ConversationMessage[];
  stream: boolean;
  includeUsage: boolean;
  choices: number;
  maxTokens: number | undefined;
  stop: string[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  /** From `response_format`; absent for text. */
  json: JsonOutput | undefined;
  /** The model reasons before it answers (reasoning_effort, or a thinking switch). */
  thinking: boolean;
  /** With `logprobs: true`, how many likeliest tokens each token lists (`top_logprobs`); absent otherwise. */
  topLogprobs: number | undefined;
  /** The service_tier asked for ("" when none). */
  serviceTier: string;
}

// OpenAI's reasoning models (o-series, GPT-5 and later) reason whatever the request says, and never show it.
const openAIReasoner = /^(o\d|gpt-[5-9])/;
export const hidesReasoning = (model: string) => openAIReasoner.test(model);

const efforts = new Set(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);

/** Whether the request turns reasoning on: an effort other than none, or Qwen's and Kimi's switches. */
function thinkingOf(body: Record<string, unknown>, model: string): boolean {
  const effort = body.reasoning_effort;
  if (effort != null && (typeof effort !== "string" || !efforts.has(effort))) {
    throw new RequestError(
      `Invalid value: '${String(effort)}'. Supported values are: 'minimal', 'low', 'medium', and 'high'.`,
      "reasoning_effort",
      "invalid_value",
    );
  }
  if (hidesReasoning(model)) return effort !== "none";
  const thinking = body.thinking;
  return (
    (typeof effort === "string" && effort !== "none") ||
    body.enable_thinking === true ||
    (isRecord(thinking) && thinking.type === "enabled")
  );
}

/** A request OpenAI would refuse with 400; carries the fields of its error body. */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

const roles = new Set(["system", "developer", "user", "assistant", "tool", "function"]);
const invalidJson =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";

export function parseChatRequest(body: unknown): ChatRequest {
  if (body === undefined) throw new RequestError(invalidJson);
  if (!isRecord(body)) throw new RequestError("The request body must be a JSON object.");
  if (typeof body.model !== "string" || body.model === "") {
    throw new RequestError("you must provide a model parameter");
  }
  const stream = optionalBoolean(body, "stream") ?? false;
  if (body.stream_options != null && !stream) {
    throw new RequestError(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      "stream_options",
    );
  }
  const tools = toolsOf(body.tools);
  const thinking = thinkingOf(body, body.model);
  checkReasoningEffort(body.model, body.reasoning_effort, tools.length > 0);
  checkMoonshotRules(body.model, body);
  checkXaiRules(body.model, body);
  return {
    model: body.model,
    messages: messagesOf(body.messages),
    stream,
    includeUsage: isRecord(body.stream_options) && body.stream_options.include_usage === true,
    choices: optionalInteger(body, "n", 1, 128) ?? 1,
    maxTokens: optionalInteger(body, "max_completion_tokens", 1) ?? optionalInteger(body, "max_tokens", 1),
    stop: stopOf(body.stop),
    tools,
    toolChoice: toolChoiceOf(body.tool_choice, tools),
    parallelToolCalls: optionalBoolean(body, "parallel_tool_calls") ?? true,
    json: jsonOutputOf(body.response_format),
    thinking,
    topLogprobs: topLogprobsOf(body),
    serviceTier: typeof body.service_tier === "string" ? body.service_tier : "",
  };
}

function topLogprobsOf(body: Record<string, unknown>): number | undefined {
  const asked = optionalBoolean(body, "logprobs") ?? false;
  const top = optionalInteger(body, "top_logprobs", 0, 20);
  if (top !== undefined && !asked) {
    throw new RequestError(
      "Invalid value for 'top_logprobs': 'logprobs' must be set to true.",
      "top_logprobs",
      "invalid_value",
    );
  }
  return asked ? (top ?? 0) : undefined;
}

function invalid(param: string, expected: string): RequestError {
  return new RequestError(`Invalid value for '${param}': expected ${expected}.`, param, "invalid_value");
}

function optionalBoolean(body: Record<string, unknown>, param: string): boolean | undefined {
  const value = body[param];
  if (value == null) return undefined;
  if (typeof value !== "boolean") throw invalid(param, "a boolean");
  return value;
}

function optionalInteger(body: Record<string, unknown>, param: string, lowest: number, highest = Infinity) {
  const value = body[param];
  if (value == null) return undefined;
  if (!Number.isInteger(value) || (value as number) < lowest || (value as number) > highest) {
    throw invalid(param, `an integer from ${lowest}${highest === Infinity ? " up" : ` to ${highest}`}`);
  }
  return value as number;
}

function messagesOf(value: unknown): ConversationMessage[] {
  if (value == null) {
    throw new RequestError("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  }
  if (!Array.isArray(value)) throw invalid("messages", "an array of objects");
  if (value.length === 0) {
    const message =
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.";
    throw new RequestError(message, "messages", "empty_array");
  }
  return value.map(messageOf);
}

function messageOf(value: unknown, index: number): ConversationMessage {
  if (!isRecord(value) || typeof value.role !== "string" || !roles.has(value.role)) {
    throw invalid(`messages[${index}]`, "an object with a role of system, developer, user, assistant or tool");
  }
  return { role: value.role, ...contentOf(value.content) };
}

function contentOf(content: unknown): Pick<ConversationMessage, "parts" | "images"> {
  if (typeof content === "string") return { parts: [content], images: 0 };
  const parts: string[] = [];
  let images = 0;
  if (!Array.isArray(content)) return { parts, images };
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === "text" && typeof part.text === "string") parts.push(part.text);
    else if (part.type === "image_url") images += 1;
  }
  return { parts, images };
}

function stopOf(value: unknown): string[] {
  if (value == null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.length <= 4 && value.every((entry) => typeof entry === "string")) return value;
  throw invalid("stop", "a string or an array of up to 4 strings");
}

function toolsOf(value: unknown): ToolDefinition[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw invalid("tools", "an array");
  const tools: ToolDefinition[] = [];
  for (const [index, tool] of value.entries()) {
    // Other tool kinds (custom tools) exist; the simulator only calls functions.
    if (!isRecord(tool) || tool.type !== "function") continue;
    const definition = tool.function;
    if (!isRecord(definition) || typeof definition.name !== "string" || definition.name === "") {
      throw new RequestError(
        `Missing required parameter: 'tools[${index}].function.name'.`,
        `tools[${index}].function`,
      );
    }
    tools.push({ name: definition.name, parameters: definition.parameters });
  }
  return tools;
}

function toolChoiceOf(value: unknown, tools: ToolDefinition[]): ToolChoice {
  if (value == null) return "auto";
  if (tools.length === 0) {
    throw new RequestError(
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      "tool_choice",
    );
  }
  if (value === "auto" || value === "none" || value === "required") return value;
  const name = isRecord(value) && isRecord(value.function) ? value.function.name : undefined;
  if (typeof name !== "string") throw invalid("tool_choice", "'none', 'auto', 'required' or a named function");
  if (!tools.some((tool) => tool.name === name)) {
    throw new RequestError(
      `Invalid value for 'tool_choice': function '${name}' is not among the tools.`,
      "tool_choice",
    );
  }
  return { name };
}

const schemaName = /^[a-zA-Z0-9_-]{1,64}$/;

function jsonOutputOf(value: unknown): JsonOutput | undefined {
  if (value == null) return undefined;
  const type = isRecord(value) ? value.type : undefined;
  if (type === "text") return undefined;
  if (type === "json_object") return {};
  if (type !== "json_schema") {
    throw invalid("response_format.type", "one of 'text', 'json_object' or 'json_schema'");
  }
  const spec = (value as Record<string, unknown>).json_schema;
  if (!isRecord(spec)) {
    throw new RequestError(
      "Missing required parameter: 'response_format.json_schema'.",
      "response_format.json_schema",
      "missing_required_parameter",
    );
  }
  if (typeof spec.name !== "string" || !schemaName.test(spec.name)) {
    throw invalid("response_format.json_schema.name", "1 to 64 letters, digits, underscores or dashes");
  }
  return spec.schema === undefined ? {} : { schema: spec.schema };
}
