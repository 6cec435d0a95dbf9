import { stripDirectives } from "./faults.js";
import { isRecord } from "./json.js";
import { sampleFromSchema } from "./schema-sample.js";
import { schemaStatedIn } from "./stated-schema.js";
import { findToolDirective, type ToolDirective } from "./tool-directive.js";

/** A vendor-neutral message, so each wire protocol only translates its own shapes. */
export interface ConversationMessage {
  role: string;
  /** The text parts, in order; a plain string content is one part. */
  parts: string[];
  /** Images carry no text but still cost prompt tokens. */
  images: number;
}

export interface ToolDefinition {
  name: string;
  /** JSON schema of the arguments. */
  parameters?: unknown;
}

export type ToolChoice = "auto" | "none" | "required" | { name: string };

export interface AnswerRequest {
  model: string;
  messages: ConversationMessage[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** Cap on answer tokens; reaching it ends the answer with reason "length". */
  maxTokens?: number;
  stop?: string[];
  /** Answer length before any cap, in tokens; the `[sim:tokens=n]` directive sets it. */
  length?: number;
  /** Which of several alternative answers (OpenAI's `n`) this is; each differs a little. */
  choice?: number;
  json?: JsonOutput;
  /** The client turned thinking on (Claude extended thinking, Gemini thinking, reasoning_effort). */
  thinking?: boolean;
}

/** Structured output: the answer is a JSON text, satisfying `schema` when there is one. */
export interface JsonOutput {
  schema?: unknown;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as a JSON text, the way vendors send them. */
  arguments: string;
}

export interface Answer {
  /** Visible text, token by token; each token is a word with its trailing space. */
  tokens: string[];
  reasoning: string[];
  toolCalls: ToolCall[];
  finishReason: "stop" | "length" | "tool_calls";
  completionTokens: number;
}

export const defaultAnswerLength = 24;
export const imagePromptTokens = 85;
const longestAnswer = 100_000;
// Bounds the work per request however long the prompt is.
const scannedCharacters = 4096;
const toolResultPreview = 40;
const charactersPerToken = 4;
const maximumParallelCalls = 3;
// biome-ignore format: one table reads better than a column of words
const paddingWords = [
  "the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "simulated", "vendors",
  "answer", "every", "request", "with", "calm", "and", "steady", "words", "so", "tests", "stay", "predictable",
];

export function promptCharacters(messages: ConversationMessage[]): number {
  let characters = 0;
  for (const message of messages) for (const part of message.parts) characters += part.length;
  return characters;
}

/** A rough stand-in for a tokenizer: four characters a token, a fixed price per image. */
export const promptTokensOf = (characters: number, images: number) =>
  Math.ceil(characters / charactersPerToken) + images * imagePromptTokens;

export function countPromptTokens(messages: ConversationMessage[]): number {
  let images = 0;
  for (const message of messages) images += message.images;
  return promptTokensOf(promptCharacters(messages), images);
}

export function lastUserText(messages: ConversationMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === "user") return message.parts.join(" ");
  }
  return "";
}

/** Splits text into tokens the simulator's way: a word with the whitespace after it. */
export function tokenize(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Cuts text into about `count` pieces that join back to it, the way vendors stream tool arguments. */
export function splitPieces(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}

function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word.length > 0);
}

export function fnv1a(text: string, hash = 0x811c9dc5): number {
  let value = hash;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193);
  }
  return value >>> 0;
}

/** A hash of what decides the answer; cheap because it reads at most a few kilobytes of the prompt. */
function seedOf(request: AnswerRequest): number {
  const messages = request.messages;
  const lastText = messages.at(-1)?.parts.join(" ") ?? "";
  const shape = `${messages.length}|${promptCharacters(messages)}|${lastText.slice(0, scannedCharacters)}|`;
  const seed = fnv1a(shape + lastUserText(messages).slice(0, scannedCharacters), fnv1a(request.model));
  return request.choice ? fnv1a(String(request.choice), seed) : seed;
}

export function answer(request: AnswerRequest): Answer {
  const seed = seedOf(request);
  const userText = stripDirectives(lastUserText(request.messages).slice(0, scannedCharacters));
  const reasoning = reasoningTokens(request, userText);
  const toolCalls = toolCallsFor(request, seed);
  if (toolCalls.length > 0) {
    const completionTokens = reasoning.length + toolCallTokens(toolCalls);
    return { tokens: [], reasoning, toolCalls, finishReason: "tool_calls", completionTokens };
  }
  const generated = request.json
    ? jsonTokens(request, request.json, userText, seed)
    : textTokens(request, userText, seed);
  const { tokens, finishReason } = limitText(generated, request);
  return { tokens, reasoning, toolCalls, finishReason, completionTokens: reasoning.length + tokens.length };
}

// DeepSeek's reasoner models think aloud before answering; others when the client asks them to.
function reasoningTokens(request: AnswerRequest, userText: string): string[] {
  if (!request.model.includes("reasoner") && !request.thinking) return [];
  const topic = words(userText).slice(0, 5).join(" ") || "nothing in particular";
  return tokenize(`The user asks about ${topic}. A short simulated answer will do.`);
}

/** The last turn that is not a system message: instructions given after a user turn leave it the user's. */
function lastTurn(messages: ConversationMessage[]): ConversationMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role !== "system") return messages[index];
  }
  return undefined;
}

function leadWords(request: AnswerRequest, userText: string): string[] {
  const last = lastTurn(request.messages);
  if (last?.role === "tool") {
    return words(`Received tool result: ${last.parts.join(" ").slice(0, toolResultPreview)}`);
  }
  return words(`Simulated answer from ${request.model}: ${userText}`);
}

function textTokens(request: AnswerRequest, userText: string, seed: number): string[] {
  const length = Math.min(request.length ?? defaultAnswerLength, longestAnswer);
  const lead = leadWords(request, userText);
  const tokens: string[] = [];
  for (let index = 0; index < length; index++) {
    const word = lead[index] ?? paddingWords[(seed + index) % paddingWords.length]!;
    tokens.push(index < length - 1 ? `${word} ` : word);
  }
  return tokens;
}

/**
 * A JSON answer in pieces of about a token: satisfying the request's schema, else one the
 * prompt states (JSON mode with the schema in the prompt), else the text answer wrapped in an object.
 */
function jsonTokens(request: AnswerRequest, json: JsonOutput, userText: string, seed: number): string[] {
  const schema = json.schema ?? schemaStatedIn(request.messages);
  const value =
    schema === undefined ? { answer: textTokens(request, userText, seed).join("") } : sampleFromSchema(schema, seed);
  const text = JSON.stringify(value ?? null);
  return splitPieces(text, Math.ceil(text.length / charactersPerToken));
}

/** Applies stop strings first, then the token cap: a stop beyond the cap is never reached. */
function limitText(tokens: string[], request: AnswerRequest): Pick<Answer, "tokens" | "finishReason"> {
  const stopped = truncateAtStop(tokens, request.stop ?? []);
  const cap = request.maxTokens;
  if (cap !== undefined && stopped.length > cap) return { tokens: stopped.slice(0, cap), finishReason: "length" };
  return { tokens: stopped, finishReason: "stop" };
}

function truncateAtStop(tokens: string[], stop: string[]): string[] {
  if (stop.length === 0) return tokens;
  const text = tokens.join("");
  let cut = -1;
  for (const sequence of stop) {
    const index = sequence === "" ? -1 : text.indexOf(sequence);
    if (index >= 0 && (cut < 0 || index < cut)) cut = index;
  }
  return cut < 0 ? tokens : tokenize(text.slice(0, cut));
}

interface ChosenTool {
  tool: ToolDefinition;
  arguments?: Record<string, unknown>;
}

function chooseTools(request: AnswerRequest): ChosenTool[] {
  const tools = request.tools ?? [];
  const choice = request.toolChoice ?? "auto";
  // Only a fresh user turn asks for tools; after a tool result the model answers in text.
  if (tools.length === 0 || choice === "none" || lastTurn(request.messages)?.role !== "user") return [];
  const directive = findToolDirective(lastUserText(request.messages));
  if (directive) return directedTool(tools, directive);
  if (typeof choice === "object") return named(tools, choice.name);
  if (request.parallelToolCalls !== false) return tools.slice(0, maximumParallelCalls).map((tool) => ({ tool }));
  return tools.slice(0, 1).map((tool) => ({ tool }));
}

const named = (tools: ToolDefinition[], name: string): ChosenTool[] =>
  tools
    .filter((tool) => tool.name === name)
    .slice(0, 1)
    .map((tool) => ({ tool }));

// A model calls only tools it was given, so a directive naming another one calls nothing.
function directedTool(tools: ToolDefinition[], directive: ToolDirective): ChosenTool[] {
  return named(tools, directive.name).map(({ tool }) => ({ tool, arguments: directive.arguments }));
}

function toolCallsFor(request: AnswerRequest, seed: number): ToolCall[] {
  const hash = seed.toString(16).padStart(8, "0");
  return chooseTools(request).map((chosen, index) => ({
    id: `call_${hash}_${index}`,
    name: chosen.tool.name,
    arguments: JSON.stringify(chosen.arguments ?? argumentsFromSchema(chosen.tool.parameters, (seed + index) >>> 0)),
  }));
}

function toolCallTokens(calls: ToolCall[]): number {
  let characters = 0;
  for (const call of calls) characters += call.name.length + call.arguments.length;
  return Math.ceil(characters / charactersPerToken);
}

/** Arguments satisfying a tool's JSON schema; a schema that is not of an object gets none. */
export function argumentsFromSchema(schema: unknown, seed = 0): Record<string, unknown> {
  if (schema === undefined) return {};
  const value = sampleFromSchema(schema, seed);
  return isRecord(value) ? value : {};
}
