import type { CatalogueModel } from "@gateway/catalogue";
import { invalidRequest } from "@gateway/platform";
import type {
  CacheControl,
  ChatRequest,
  ContentPart,
  Document,
  Message,
  ResponseFormat,
  ThinkingBlock,
  Tool,
  ToolChoice,
} from "@gateway/proto/router/v1/chat";
import { refuseLogprobs } from "../refuse-logprobs.js";
import { adaptiveEffortOf, anthropicMinimumThinkingBudget, thinkingBudgetOf } from "../thinking-budget.js";

// The canonical (OpenAI-shaped) request as an Anthropic Messages API body.
// https://docs.anthropic.com/en/api/messages

type Block = Record<string, unknown>;
interface AnthropicMessageParam {
  role: "user" | "assistant" | "system";
  content: Block[];
}

const isSystem = (message: Message) => message.role === "system" || message.role === "developer";

/**
 * The system messages that open the conversation form the system prompt. Later ones stay where
 * they are when the client placed them there in Claude's own protocol (Messages, beta
 * mid-conversation-system-2026-04-07); from other ingresses, whose models may predate them,
 * every system message joins the system prompt, as before.
 */
function leadingSystemCount(request: ChatRequest): number {
  if (request.clientEndpoint !== "/v1/messages") return request.messages.length;
  const first = request.messages.findIndex((message) => !isSystem(message));
  return first < 0 ? request.messages.length : first;
}

/** The max_tokens sent when neither the client nor the catalogue gives one: Anthropic requires it. */
export const fallbackMaxTokens = 4096;

const imageMediaTypes = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);
const dataUrlPattern = /^data:([^;,]+);base64,(.*)$/is;

function textOf(message: Message): string {
  if (message.text !== undefined) return message.text;
  return message.parts.map((part) => part.text ?? "").join("");
}

function imageBlock(url: string): Block {
  const data = dataUrlPattern.exec(url);
  if (!data) return { type: "image", source: { type: "url", url } };
  const mediaType = data[1]!.toLowerCase();
  if (!imageMediaTypes.has(mediaType)) {
    throw invalidRequest(
      `Image type ${mediaType} is not supported by this model; use image/jpeg, image/png, image/gif or image/webp.`,
      "messages",
      "unsupported_value",
    );
  }
  return { type: "image", source: { type: "base64", media_type: mediaType, data: data[2]! } };
}

const cacheControlOf = (control: CacheControl | undefined) =>
  control && {
    cache_control: {
      type: control.type,
      ...(control.ttl !== undefined && { ttl: control.ttl }),
      ...(control.scope !== undefined && { scope: control.scope }),
    },
  };

function documentSource(document: Document): Block {
  if (document.sourceType === "url") return { type: "url", url: document.data };
  if (document.sourceType === "text") return { type: "text", media_type: "text/plain", data: document.data };
  return { type: "base64", media_type: document.mediaType ?? "application/pdf", data: document.data };
}

function documentBlock(document: Document): Block {
  return {
    type: "document",
    source: documentSource(document),
    ...(document.title !== undefined && { title: document.title }),
    ...(document.context !== undefined && { context: document.context }),
  };
}

/** Thinking goes back exactly as Claude wrote it: the signature vouches for it. */
const thinkingBlock = (block: ThinkingBlock): Block =>
  block.redactedData !== undefined
    ? { type: "redacted_thinking", data: block.redactedData }
    : { type: "thinking", thinking: block.thinking, signature: block.signature ?? "" };

function partBlock(part: ContentPart): Block | undefined {
  if (part.thinking) return thinkingBlock(part.thinking);
  let block: Block | undefined;
  if (part.imageUrl) block = imageBlock(part.imageUrl.url);
  else if (part.document) block = documentBlock(part.document);
  else if (part.text) block = { type: "text", text: part.text };
  return block && { ...block, ...cacheControlOf(part.cacheControl) };
}

/** Message parts as content blocks; Anthropic rejects empty text blocks, so none are sent. */
function contentBlocks(message: Message): Block[] {
  if (message.text !== undefined) return message.text === "" ? [] : [{ type: "text", text: message.text }];
  return message.parts.flatMap((part): Block[] => {
    const block = partBlock(part);
    return block ? [block] : [];
  });
}

function toolUseBlocks(message: Message, index: number): Block[] {
  return message.toolCalls.map((call) => {
    let input: unknown;
    try {
      input = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch {
      input = undefined;
    }
    // Anthropic takes the arguments as an object, so text that is not a JSON object cannot be replayed.
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      throw invalidRequest(
        `messages[${index}].tool_calls: the arguments of tool call ${call.id} must be a JSON object.`,
        `messages[${index}].tool_calls`,
        "invalid_value",
      );
    }
    return { type: "tool_use", id: call.id, name: call.name, input, ...cacheControlOf(call.cacheControl) };
  });
}

function toolResultBlock(message: Message, index: number): Block {
  if (!message.toolCallId) {
    throw invalidRequest(`messages[${index}]: a tool message needs tool_call_id.`, `messages[${index}]`);
  }
  const blocks = contentBlocks(message);
  const content = message.text !== undefined ? message.text : blocks;
  return {
    type: "tool_result",
    tool_use_id: message.toolCallId,
    ...(blocks.length > 0 && { content }),
    ...(message.isError && { is_error: true }),
    ...cacheControlOf(message.cacheControl),
  };
}

/**
 * The conversation as alternating user/assistant turns. Tool results become tool_result blocks
 * of a user turn, so consecutive tool messages (and a user message after them) share one turn;
 * any other consecutive same-role messages are merged too.
 */
function toMessages(messages: Message[], leadingSystem: number): AnthropicMessageParam[] {
  const turns: AnthropicMessageParam[] = [];
  for (const [index, message] of messages.entries()) {
    let role: AnthropicMessageParam["role"];
    let content: Block[];
    if (isSystem(message)) {
      if (index < leadingSystem) continue;
      role = "system";
      content = contentBlocks(message);
    } else if (message.role === "assistant") {
      // reasoning_content is dropped: Anthropic only takes thinking back with its signature.
      role = "assistant";
      content = [...contentBlocks(message), ...toolUseBlocks(message, index)];
    } else if (message.role === "tool") {
      role = "user";
      content = [toolResultBlock(message, index)];
    } else {
      role = "user";
      content = contentBlocks(message);
    }
    if (content.length === 0) continue;
    const last = turns.at(-1);
    // A loop, not push(...content): spreading ~150,000 blocks as arguments overflows the stack.
    if (last?.role === role) for (const block of content) last.content.push(block);
    else turns.push({ role, content });
  }
  return turns;
}

/** A turn that is one text block is sent as a plain string, the form Anthropic's own examples use. */
function compact(turn: AnthropicMessageParam): Record<string, unknown> {
  const [only, ...rest] = turn.content;
  if (only && rest.length === 0 && only.type === "text" && !only.cache_control) {
    return { role: turn.role, content: only.text };
  }
  return { role: turn.role, content: turn.content };
}

/**
 * Anthropic has no response_format (its newer structured outputs are not in the verified
 * protocol notes, and refusing would break common clients), so JSON mode becomes an
 * instruction appended to the system prompt, with the schema for json_schema. This is best
 * effort: the answer is very likely, not guaranteed, to be valid JSON. A client needing
 * guaranteed structure should use a tool with a schema (tool_choice naming it) instead.
 */
function jsonInstruction(format: ResponseFormat | undefined): string | undefined {
  if (!format || format.type === "text") return undefined;
  const base = "Respond with a single valid JSON value and nothing else: no prose, no Markdown code fences.";
  if (format.type !== "json_schema" || !format.jsonSchemaJson) return base;
  const spec = JSON.parse(format.jsonSchemaJson) as { schema?: unknown };
  if (spec.schema === undefined) return base;
  return `${base} The JSON must conform to this JSON Schema:\n${JSON.stringify(spec.schema)}`;
}

/** One string, or text blocks when a cache breakpoint sits in the system prompt; the gateway's instructions go last. */
function toSystem(request: ChatRequest, leadingSystem: number, instructions: string[]): string | Block[] | undefined {
  const system = request.messages.filter((message, index) => index < leadingSystem && isSystem(message));
  if (system.some((message) => message.parts.some((part) => part.cacheControl))) {
    return [...system.flatMap(contentBlocks), ...instructions.map((text) => ({ type: "text", text }))];
  }
  const parts = [...system.map(textOf).filter((text) => text !== ""), ...instructions];
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

const autoChoice: ToolChoice = { mode: "auto" };

function toToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): Block | undefined {
  const single = parallel === false ? { disable_parallel_tool_use: true } : {};
  // Without a choice Anthropic's default is auto; it is only spelled out to forbid parallel calls.
  if (!choice) return parallel === false ? { type: "auto", ...single } : undefined;
  switch (choice.mode) {
    case "auto":
      return { type: "auto", ...single };
    case "none":
      return { type: "none" };
    case "required":
      return { type: "any", ...single };
    case "function":
      return { type: "tool", name: choice.functionName, ...single };
    default:
      throw invalidRequest(`Unsupported tool_choice ${choice.mode}.`, "tool_choice", "invalid_value");
  }
}

/**
 * A forced tool choice for a model that answers one with a 400 (Claude Opus 5.5, Sonnet 5.5, Fable
 * 5.1 on): emulated, so structured output through a forced function (LangChain's function_calling,
 * instructor) keeps working. A named function goes as the only tool, so no other can be called, with
 * tool_choice auto and an instruction to call it; "required" keeps every tool with an instruction to
 * call one. Best effort: the model may still answer in text (finish_reason "stop" then says so).
 */
function emulatedForcedChoice(request: ChatRequest, model: CatalogueModel): ForcedChoice | undefined {
  const choice = request.toolChoice;
  if (!model.refuses?.includes("forced_tool_choice") || request.tools.length === 0) return undefined;
  if (choice?.mode === "function") {
    return {
      only: choice.functionName,
      instruction: `Answer by calling the tool \`${choice.functionName}\`; do not answer in text.`,
    };
  }
  if (choice?.mode === "required") return { instruction: "Answer by calling one of the tools; do not answer in text." };
  return undefined;
}

interface ForcedChoice {
  /** The one tool sent, for a named function. */
  only?: string;
  instruction: string;
}

/** A final assistant turn (a prefill), which some models answer with a 400: refused before any vendor call. */
function refusePrefill(request: ChatRequest, model: CatalogueModel): void {
  if (!model.refuses?.includes("prefill")) return;
  const last = request.messages.filter((message) => !isSystem(message)).at(-1);
  if (last?.role === "assistant" && last.toolCalls.length === 0) {
    throw invalidRequest(
      `The model \`${model.id}\` does not take a final assistant message (prefill); end the conversation with a user message.`,
      "messages",
      "unsupported_value",
    );
  }
}

/** input_schema is required and must say `type: "object"`; OpenAI lets parameters be omitted or untyped. */
function inputSchema(parametersJson: string | undefined): Record<string, unknown> {
  const schema = parametersJson ? (JSON.parse(parametersJson) as Record<string, unknown>) : {};
  if (schema.type !== undefined) return schema;
  return { type: "object", ...(Object.keys(schema).length === 0 && { properties: {} }), ...schema };
}

function toTools(request: ChatRequest, only: string | undefined): Block[] | undefined {
  if (request.tools.length === 0) return undefined;
  const tools = only === undefined ? request.tools : request.tools.filter((tool) => tool.name === only);
  return tools.map((tool) =>
    tool.anthropicToolJson !== undefined ? (JSON.parse(tool.anthropicToolJson) as Block) : clientTool(tool),
  );
}

function clientTool(tool: Tool): Block {
  return {
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    input_schema: inputSchema(tool.parametersJson),
    // `strict` is left out: Anthropic's strict tool use is newer than the models we serve.
    ...cacheControlOf(tool.cacheControl),
  };
}

/**
 * OpenAI's temperature runs 0–2, Anthropic's 0–1. Halving keeps the whole client range valid
 * and its ordering: 0 stays (near) deterministic and OpenAI's most random 2 becomes Anthropic's
 * most random 1. The price: OpenAI's default 1 lands on 0.5, not Anthropic's default 1, so a
 * client wanting Anthropic's default sampling leaves temperature out (then none is sent).
 * Clamping instead would collapse everything from 1 to 2 into one value.
 */
export function toAnthropicTemperature(temperature: number): number {
  return Math.min(1, Math.max(0, temperature / 2));
}

/** The thinking the client asked for: Anthropic's own object, or one made from reasoning_effort. */
function thinkingOf(request: ChatRequest, extra: Record<string, unknown>): Block | undefined {
  if (request.thinking) {
    const { type, budgetTokens } = request.thinking;
    // Budgets from other ingresses (Gemini's thinkingBudget takes any positive number) may fall
    // below Anthropic's floor, which it refuses: thinking a little more beats failing the request.
    return {
      type,
      ...(budgetTokens !== undefined && { budget_tokens: Math.max(budgetTokens, anthropicMinimumThinkingBudget) }),
    };
  }
  // Anthropic's own extended-thinking object sent through the OpenAI ingress, passed as written.
  if (typeof extra.thinking === "object" && extra.thinking !== null) return extra.thinking as Block;
  const budget = thinkingBudgetOf(request);
  return budget ? { type: "enabled", budget_tokens: budget } : undefined;
}

type AdaptiveMode = Exclude<CatalogueModel["thinking"], "budget" | undefined>;

/** How "no thinking" is said to each kind of adaptive-only model (catalogue-schema.ts, `thinking`). */
const thinkingOff: Record<AdaptiveMode, { thinking?: Block; output_config?: Block }> = {
  // Off unless asked for: leaving it out means none.
  adaptive: {},
  adaptive_on: { thinking: { type: "disabled" } },
  // Sonnet 5.5 refuses "disabled"; thinking only between tool calls is the least it does.
  between_tools: { thinking: { type: "between_tools" } },
  // Opus 5.5 and Fable cannot stop thinking: the least effort is the nearest to none.
  always: { thinking: { type: "adaptive" }, output_config: { effort: "low" } },
};

/**
 * Thinking for a model that takes only adaptive thinking (Claude Opus 4.7 on): no budget, an
 * effort instead. Nothing asked: nothing sent, so the model's own default applies.
 */
function adaptiveThinkingOf(request: ChatRequest, mode: AdaptiveMode): { thinking?: Block; output_config?: Block } {
  const effort = adaptiveEffortOf(request);
  if (request.thinking === undefined && effort === undefined) return {};
  if (request.thinking?.type === "disabled" || effort === "none") return thinkingOff[mode];
  return { thinking: { type: "adaptive" }, ...(effort && { output_config: { effort } }) };
}

type ExtraFields = { thinking?: Block; metadata?: Block; output_config?: Block };

function budgetThinkingOf(request: ChatRequest, extra: Record<string, unknown>): ExtraFields {
  const thinking = thinkingOf(request, extra);
  return thinking ? { thinking } : {};
}

/** Fields from the pass-through JSON and the canonical extensions that Anthropic understands. */
function extraFields(request: ChatRequest, model: CatalogueModel): ExtraFields {
  const extra = request.extraJson ? (JSON.parse(request.extraJson) as Record<string, unknown>) : {};
  // Anthropic's own thinking object, sent through the OpenAI ingress, goes as written to any model.
  const passedThinking = typeof extra.thinking === "object" && extra.thinking !== null;
  const mode = model.thinking ?? "budget";
  const fields: ExtraFields =
    mode !== "budget" && !passedThinking ? adaptiveThinkingOf(request, mode) : budgetThinkingOf(request, extra);
  // OpenAI's end-user identifiers go to metadata.user_id (OpenAI's metadata map has no Anthropic counterpart).
  const userId = request.user ?? (typeof extra.safety_identifier === "string" ? extra.safety_identifier : undefined);
  if (userId) fields.metadata = { user_id: userId };
  return fields;
}

/** Thinking spends from max_tokens, which must exceed its budget: the answer's own allowance comes on top. */
function maxTokensWith(maxTokens: number, thinking: Block | undefined): number {
  const budget = typeof thinking?.budget_tokens === "number" ? thinking.budget_tokens : 0;
  return maxTokens > budget ? maxTokens : budget + maxTokens;
}

/** Maps the canonical request to an Anthropic Messages API body. */
export function toAnthropicRequest(request: ChatRequest, model: CatalogueModel): Record<string, unknown> {
  if (request.n !== undefined && request.n > 1) {
    throw invalidRequest(
      `The model \`${model.id}\` returns one choice per request; n must be 1.`,
      "n",
      "unsupported_value",
    );
  }
  refuseLogprobs(request);
  refusePrefill(request, model);
  const extra = extraFields(request, model);
  const forced = emulatedForcedChoice(request, model);
  const instructions = [jsonInstruction(request.responseFormat), forced?.instruction].filter(
    (text): text is string => text !== undefined,
  );
  const refused = new Set(model.refuses ?? []);
  const unlessRefused = <T>(name: "temperature" | "top_p" | "top_k", value: T) =>
    refused.has(name) ? undefined : value;
  const leadingSystem = leadingSystemCount(request);
  const body: Record<string, unknown> = {
    model: model.id,
    max_tokens: maxTokensWith(request.maxTokens ?? model.default_max_tokens ?? fallbackMaxTokens, extra.thinking),
    system: toSystem(request, leadingSystem, instructions),
    messages: toMessages(request.messages, leadingSystem).map(compact),
    // These models reject temperature and top_p together ("cannot both be specified for this
    // model"), so top_p only goes out when temperature does not.
    temperature: unlessRefused(
      "temperature",
      request.temperature !== undefined ? toAnthropicTemperature(request.temperature) : undefined,
    ),
    top_p: unlessRefused("top_p", request.temperature === undefined ? request.topP : undefined),
    top_k: unlessRefused("top_k", request.topK),
    stop_sequences: request.stop.length > 0 ? request.stop : undefined,
    tools: toTools(request, forced?.only),
    tool_choice:
      request.tools.length > 0
        ? toToolChoice(forced ? autoChoice : request.toolChoice, request.parallelToolCalls)
        : undefined,
    stream: request.stream || undefined,
    // seed, presence_penalty and frequency_penalty have no Anthropic counterpart and are dropped,
    // as they are hints rather than contracts in OpenAI's API too.
    ...extra,
    // Claude-only settings from the Messages ingress, as the client wrote them.
    ...(request.anthropicExtraJson ? (JSON.parse(request.anthropicExtraJson) as Record<string, unknown>) : {}),
  };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
}
