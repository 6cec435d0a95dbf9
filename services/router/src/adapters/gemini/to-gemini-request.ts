import { invalidRequest } from "@gateway/platform";
import type { ChatRequest, Document, Message, Tool, ToolChoice } from "@gateway/proto/router/v1/chat";
import { refuseLogprobs } from "../refuse-logprobs.js";
import { effortWithin, reasoningEffortOf, thinkingBudgetOf } from "../thinking-budget.js";
import type {
  GeminiContent,
  GeminiFunctionCallingMode,
  GeminiGenerationConfig,
  GeminiInlineData,
  GeminiNativeFields,
  GeminiPart,
  GeminiRequest,
} from "./gemini-wire-types.js";

/** Turns an image URL (data: or http(s)) into inline data; the adapter decides how. */
export type ImageLoader = (url: string) => Promise<GeminiInlineData>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function textOf(message: Message): string[] {
  const texts = message.text !== undefined ? [message.text] : message.parts.map((part) => part.text ?? "");
  // Gemini refuses empty text parts ("empty text parameter").
  return texts.filter((text) => text !== "");
}

/** A text document is its text; a base64 one (a PDF) inline data, which Gemini reads. */
function documentPart(document: Document): GeminiPart {
  if (document.sourceType === "text") return { text: document.data };
  if (document.sourceType === "base64") {
    return { inlineData: { mimeType: document.mediaType ?? "application/pdf", data: document.data } };
  }
  throw invalidRequest(
    "This model does not fetch documents by URL; send the document as base64 data or text.",
    "messages",
    "unsupported_value",
  );
}

/** Claude's thinking blocks (part.thinking) mean nothing to Gemini and are left out. */
function userParts(message: Message, images: Map<string, GeminiInlineData>): GeminiPart[] {
  if (message.text !== undefined) return message.text === "" ? [] : [{ text: message.text }];
  return message.parts.flatMap((part): GeminiPart[] => {
    if (part.imageUrl) return [{ inlineData: images.get(part.imageUrl.url)! }];
    if (part.document) return [documentPart(part.document)];
    return part.text ? [{ text: part.text }] : [];
  });
}

function callArguments(id: string, text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) {
    throw invalidRequest(`The arguments of tool call ${id} must be a JSON object.`, "messages", "invalid_value");
  }
  return parsed;
}

/** Gemini's thoughtSignatures go back on the parts they came on: the text's on its last part. */
function modelParts(message: Message): GeminiPart[] {
  const pieces = textOf(message);
  const signature = (index: number) =>
    index === pieces.length - 1 && message.thoughtSignature ? { thoughtSignature: message.thoughtSignature } : {};
  const text: GeminiPart[] = pieces.map((piece, index) => ({ text: piece, ...signature(index) }));
  const calls = message.toolCalls.map((call) => ({
    functionCall: { name: call.name, args: callArguments(call.id, call.arguments) },
    ...(call.thoughtSignature && { thoughtSignature: call.thoughtSignature }),
  }));
  return [...text, ...calls];
}

// What JSON text can start with (after whitespace): an object, array, string, number or literal.
const jsonStart = /^\s*(?:[[{"\d-]|true|false|null)/;

/** Gemini wants an object back from a function; anything else is wrapped as `{result: ...}`. */
function functionResult(text: string): Record<string, unknown> {
  // Plain text is most results; a thrown parse error per result costs more than the rest of the translation.
  if (!jsonStart.test(text)) return { result: text };
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : { result: parsed };
  } catch {
    return { result: text };
  }
}

function functionResponsePart(message: Message, callNames: Map<string, string>): GeminiPart {
  const id = message.toolCallId ?? "";
  const name = callNames.get(id) ?? message.name;
  if (!name) {
    throw invalidRequest(
      `The tool message for tool_call_id '${id}' does not answer any earlier assistant tool call.`,
      "messages",
      "invalid_value",
    );
  }
  const text = message.text ?? message.parts.map((part) => part.text ?? "").join("");
  return { functionResponse: { name, response: functionResult(text) } };
}

/** Fetches every distinct image once, in parallel, before the body is built. */
async function loadImages(request: ChatRequest, loadImage: ImageLoader): Promise<Map<string, GeminiInlineData>> {
  const urls = new Set<string>();
  for (const message of request.messages) {
    for (const part of message.parts) if (part.imageUrl) urls.add(part.imageUrl.url);
  }
  const loaded = await Promise.all([...urls].map(async (url) => [url, await loadImage(url)] as const));
  return new Map(loaded);
}

const isUserText = (content: GeminiContent | undefined) =>
  content?.role === "user" && content.parts.every((part) => !("functionResponse" in part));

/**
 * Gemini takes system instructions only before the conversation. Later ones (mid-conversation
 * system messages) keep their place as user text: in the user turn they follow, else in a turn
 * of their own that the next user message joins. Tool results keep a turn of their own.
 */
function foldInstructions(contents: GeminiContent[], texts: string[]): GeminiContent | undefined {
  if (texts.length === 0) return undefined;
  const parts = texts.map((text) => ({ text }));
  const last = contents.at(-1);
  if (isUserText(last)) {
    last!.parts.push(...parts);
    return undefined;
  }
  const turn: GeminiContent = { role: "user", parts };
  contents.push(turn);
  return turn;
}

// Messages translated between turns of the event loop, so a long history lets other calls through.
const messagesPerTurn = 500;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function toContents(request: ChatRequest, images: Map<string, GeminiInlineData>) {
  const system: { text: string }[] = [];
  const contents: GeminiContent[] = [];
  // Built as the history is read, so an id a client reused names the latest call of that id.
  const callNames = new Map<string, string>();
  // The turn of tool results being gathered: results of parallel calls go back together, in one user turn.
  let results: GeminiContent | undefined;
  // The turn that folded instructions opened, which the user message after them joins.
  let instructions: GeminiContent | undefined;
  for (const [index, message] of request.messages.entries()) {
    if (index > 0 && index % messagesPerTurn === 0) await nextTurn();
    if ((message.role === "system" || message.role === "developer") && contents.length === 0) {
      for (const text of textOf(message)) system.push({ text });
    } else if (message.role === "system" || message.role === "developer") {
      instructions = foldInstructions(contents, textOf(message)) ?? instructions;
    } else if (message.role === "tool") {
      const part = functionResponsePart(message, callNames);
      if (results !== undefined && results === contents.at(-1)) {
        results.parts.push(part);
      } else {
        results = { role: "user", parts: [part] };
        contents.push(results);
      }
    } else if (message.role === "assistant") {
      for (const call of message.toolCalls) callNames.set(call.id, call.name);
      const parts = modelParts(message);
      if (parts.length > 0) contents.push({ role: "model", parts });
    } else {
      const parts = userParts(message, images);
      if (instructions !== undefined && instructions === contents.at(-1)) instructions.parts.push(...parts);
      else if (parts.length > 0) contents.push({ role: "user", parts });
    }
  }
  return { system, contents };
}

// Keys of Gemini's Schema (an OpenAPI subset); JSON Schema keywords outside it are rejected.
// https://ai.google.dev/api/caching#Schema
const schemaKeys = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

/**
 * Narrows a tool's JSON Schema to Gemini's Schema: unknown keywords (additionalProperties,
 * $schema, strict's extras) are dropped, `type: [T, "null"]` becomes `type: T, nullable: true`,
 * and `const` becomes a one-value enum.
 */
export function toGeminiSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "type" && Array.isArray(value)) {
      const types = value.filter((type) => type !== "null");
      if (types.length > 0) result.type = types[0];
      if (types.length < value.length) result.nullable = true;
    } else if (key === "const") {
      result.enum = [value];
    } else if (key === "properties" && isObject(value)) {
      result.properties = Object.fromEntries(
        Object.entries(value).map(([name, inner]) => [name, toGeminiSchema(inner)]),
      );
    } else if (key === "items") {
      result.items = toGeminiSchema(value);
    } else if (key === "anyOf" && Array.isArray(value)) {
      result.anyOf = value.map(toGeminiSchema);
    } else if (schemaKeys.has(key)) {
      result[key] = value;
    }
  }
  return result;
}

function toParameters(tool: Tool): Record<string, unknown> | undefined {
  if (!tool.parametersJson) return undefined;
  const schema = toGeminiSchema(JSON.parse(tool.parametersJson));
  // Gemini refuses an OBJECT without properties; a function without arguments simply has no parameters.
  const hasProperties = isObject(schema) && isObject(schema.properties) && Object.keys(schema.properties).length > 0;
  return hasProperties ? schema : undefined;
}

const callingModes: Record<string, GeminiFunctionCallingMode> = { auto: "AUTO", none: "NONE", required: "ANY" };

function toToolConfig(choice: ToolChoice): GeminiRequest["toolConfig"] {
  if (choice.mode === "function" && choice.functionName) {
    return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.functionName] } };
  }
  return { functionCallingConfig: { mode: callingModes[choice.mode] ?? "AUTO" } };
}

function toResponseFormat(request: ChatRequest): Partial<GeminiGenerationConfig> {
  const format = request.responseFormat;
  if (!format || format.type === "text") return {};
  const jsonSchema = format.type === "json_schema" && format.jsonSchemaJson ? JSON.parse(format.jsonSchemaJson) : {};
  // responseJsonSchema takes JSON Schema as is, unlike responseSchema's OpenAPI subset.
  return {
    responseMimeType: "application/json",
    ...(isObject(jsonSchema) && jsonSchema.schema !== undefined && { responseJsonSchema: jsonSchema.schema }),
  };
}

/**
 * A thinking budget (explicit, or from reasoning_effort), with the thoughts shown as
 * reasoning_content; disabled thinking is a zero budget. Otherwise a Gemini client's own
 * thinkingConfig (dynamic thinking, thoughts shown), as it wrote it.
 */
function toThinkingConfig(
  request: ChatRequest,
  native: GeminiNativeFields,
  levels: readonly string[] | undefined,
): Partial<GeminiGenerationConfig> {
  if (levels) return toThinkingLevel(request, native, levels);
  if (request.thinking?.type === "disabled") return { thinkingConfig: { thinkingBudget: 0 } };
  const budget = thinkingBudgetOf(request);
  if (budget !== undefined) return { thinkingConfig: { thinkingBudget: budget, includeThoughts: true } };
  return native.generationConfig ?? {};
}

/**
 * Gemini 3.x thinks by level: the request's effort (or its budget's) moved to a level the model
 * has; disabled thinking is its least level, as 3.x Pro cannot stop thinking and Flash's "minimal"
 * is the nearest to none. Nothing asked: the client's own thinkingConfig, else the model's default.
 */
function toThinkingLevel(
  request: ChatRequest,
  native: GeminiNativeFields,
  levels: readonly string[],
): Partial<GeminiGenerationConfig> {
  const effort = request.thinking?.type === "disabled" ? "none" : reasoningEffortOf(request);
  if (effort === undefined) return native.generationConfig ?? {};
  return { thinkingConfig: { thinkingLevel: effortWithin(effort, levels), includeThoughts: true } };
}

/** The Gemini-only fields a Gemini-format client set, passed through as it wrote them. */
function nativeFieldsOf(request: ChatRequest): GeminiNativeFields {
  if (!request.extraJson) return {};
  const extra = JSON.parse(request.extraJson) as Record<string, unknown>;
  return isObject(extra.gemini) ? (extra.gemini as GeminiNativeFields) : {};
}

function toGenerationConfig(
  request: ChatRequest,
  native: GeminiNativeFields,
  levels: readonly string[] | undefined,
): GeminiGenerationConfig | undefined {
  const config: GeminiGenerationConfig = {
    temperature: request.temperature,
    topP: request.topP,
    maxOutputTokens: request.maxTokens,
    stopSequences: request.stop.length > 0 ? request.stop : undefined,
    candidateCount: request.n,
    seed: request.seed,
    // Zero is the default; sending it would fail on models without penalty support.
    presencePenalty: request.presencePenalty || undefined,
    frequencyPenalty: request.frequencyPenalty || undefined,
    topK: request.topK,
    ...toResponseFormat(request),
    ...toThinkingConfig(request, native, levels),
  };
  for (const key of Object.keys(config) as (keyof GeminiGenerationConfig)[]) {
    if (config[key] === undefined) delete config[key];
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

/**
 * Maps the canonical request to a generateContent body: system and developer messages become
 * systemInstruction, assistant turns `model`, tool results functionResponse parts, images inline data.
 */
export async function toGeminiRequest(
  request: ChatRequest,
  loadImage: ImageLoader,
  thinkingLevels?: readonly string[],
): Promise<GeminiRequest> {
  refuseLogprobs(request);
  const images = await loadImages(request, loadImage);
  const { system, contents } = await toContents(request, images);
  const body: GeminiRequest = { contents };
  if (system.length > 0) body.systemInstruction = { parts: system };
  if (request.tools.length > 0) {
    const functionDeclarations = request.tools.map((tool) => {
      const parameters = toParameters(tool);
      return {
        name: tool.name,
        ...(tool.description && { description: tool.description }),
        ...(parameters && { parameters }),
      };
    });
    body.tools = [{ functionDeclarations }];
  }
  if (request.toolChoice) body.toolConfig = toToolConfig(request.toolChoice);
  const native = nativeFieldsOf(request);
  const generationConfig = toGenerationConfig(request, native, thinkingLevels);
  if (generationConfig) body.generationConfig = generationConfig;
  if (native.safetySettings) body.safetySettings = native.safetySettings;
  return body;
}
