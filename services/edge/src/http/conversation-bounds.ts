import { invalidRequest } from "@gateway/platform";
import type { RequestHandler } from "express";

/**
 * How much one conversation may carry (REQUEST_MAX_PARTS, REQUEST_MAX_TOOL_CALLS). Validating,
 * pairing and translating a conversation is linear work on an event loop every tenant shares,
 * so a request far beyond anything a client sends is refused before any of it happens.
 */
export interface ConversationLimits {
  parts: number;
  toolCalls: number;
}

interface Tally {
  parts: number;
  toolCalls: number;
  toolResults: number;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const objectsOf = (value: unknown): Json[] => listOf(value).filter(isObject);

// Read from the body as parsed, before its schema: a shape the schema refuses counts as far as
// it can be read, and the schema refuses the rest after.

/** Chat: each message and content part; `tool_calls` and `function_call`; `tool` and `function` messages. */
function chatTally(body: Json): Tally {
  const tally = { parts: 0, toolCalls: 0, toolResults: 0 };
  for (const message of objectsOf(body.messages)) {
    tally.parts += 1 + listOf(message.content).length;
    tally.toolCalls += listOf(message.tool_calls).length + (message.function_call === undefined ? 0 : 1);
    if (message.role === "tool" || message.role === "function") tally.toolResults += 1;
  }
  return tally;
}

/** Anthropic's Messages: each message and content block; `*tool_use` blocks call, `*tool_result` ones answer. */
function messagesTally(body: Json): Tally {
  const tally = { parts: listOf(body.system).length, toolCalls: 0, toolResults: 0 };
  for (const message of objectsOf(body.messages)) {
    const blocks = listOf(message.content);
    tally.parts += 1 + blocks.length;
    for (const block of blocks.filter(isObject)) {
      if (typeof block.type !== "string") continue;
      if (block.type.endsWith("tool_use")) tally.toolCalls += 1;
      if (block.type.endsWith("tool_result")) tally.toolResults += 1;
    }
  }
  return tally;
}

/** Responses: each input item and content part; `*_call` items call, `*_output` ones answer. */
function responsesTally(body: Json): Tally {
  const tally = { parts: 0, toolCalls: 0, toolResults: 0 };
  for (const item of objectsOf(body.input)) {
    tally.parts += 1 + listOf(item.content).length;
    if (typeof item.type !== "string") continue;
    if (item.type.endsWith("_call")) tally.toolCalls += 1;
    if (item.type.endsWith("_output")) tally.toolResults += 1;
  }
  return tally;
}

/** Gemini (either key spelling): each content and part; functionCall parts call, functionResponse ones answer. */
function geminiTally(body: Json): Tally {
  const request = isObject(body.generateContentRequest)
    ? body.generateContentRequest
    : isObject(body.generate_content_request)
      ? body.generate_content_request
      : body;
  const tally = { parts: 0, toolCalls: 0, toolResults: 0 };
  for (const content of objectsOf(request.contents)) {
    const parts = objectsOf(content.parts);
    tally.parts += 1 + parts.length;
    for (const part of parts) {
      if (part.functionCall !== undefined || part.function_call !== undefined) tally.toolCalls += 1;
      if (part.functionResponse !== undefined || part.function_response !== undefined) tally.toolResults += 1;
    }
  }
  return tally;
}

const tallies = {
  chat: [chatTally, "messages"],
  messages: [messagesTally, "messages"],
  responses: [responsesTally, "input"],
  gemini: [geminiTally, "contents"],
} as const;

export type ConversationWire = keyof typeof tallies;

const counted = (count: number) => count.toLocaleString("en-US");

/** Throws the 400 for a conversation past its limits, naming the limit and its setting. */
export function refuseOversizedConversation(wire: ConversationWire, body: unknown, limits: ConversationLimits): void {
  if (!isObject(body)) return;
  const [tallyOf, param] = tallies[wire];
  const tally = tallyOf(body);
  const over: [number, number, string, string, string][] = [
    [tally.parts, limits.parts, "messages and content parts", "REQUEST_MAX_PARTS", "too_many_parts"],
    [tally.toolCalls, limits.toolCalls, "tool calls", "REQUEST_MAX_TOOL_CALLS", "too_many_tool_calls"],
    [tally.toolResults, limits.toolCalls, "tool results", "REQUEST_MAX_TOOL_CALLS", "too_many_tool_results"],
  ];
  for (const [count, limit, what, setting, code] of over) {
    if (count <= limit) continue;
    throw invalidRequest(
      `This request carries ${counted(count)} ${what}; the gateway takes at most ${counted(limit)} in one request ` +
        `(${setting}), more than any model's context holds in practice.`,
      param,
      code,
    );
  }
}

/** Middleware after a JSON body parser: refuses a conversation past its limits before its route works on it. */
export const conversationBounds =
  (wire: ConversationWire, limits: ConversationLimits): RequestHandler =>
  (request, _response, next) => {
    try {
      refuseOversizedConversation(wire, request.body, limits);
      next();
    } catch (error) {
      next(error);
    }
  };
