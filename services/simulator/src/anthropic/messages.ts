import { randomUUID } from "node:crypto";
import { type Answer, answer, countPromptTokens, lastUserText, splitPieces } from "../answer.js";
import { applyLeadingFaults, type Fault, resolveFault } from "../faults.js";
import { type Exchange, type SimulatorState, sendJson, wait, writeHead, writeThenSever } from "../http.js";
import type { CacheUse } from "../prompt-cache.js";
import { cachePrefixes } from "./cache-breakpoints.js";
import { requireAnthropicHeaders, sendAnthropicError, sendStatusFault } from "./errors.js";
import {
  type MessagesRequest,
  MessagesRequestError,
  parseCountTokensRequest,
  parseMessagesRequest,
} from "./messages-request.js";
import { thinkingSignature } from "./thinking-signature.js";

// POST /v1/messages as Anthropic answers it, JSON or SSE with named events.
// https://docs.anthropic.com/en/api/messages and https://docs.anthropic.com/en/docs/build-with-claude/streaming

interface Pacing {
  firstTokenMs: number;
  tokenMs: number;
}

type StopReason = "end_turn" | "stop_sequence" | "max_tokens" | "tool_use";

type OutputBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** Everything one response says, whichever way it is sent. */
interface Reply {
  id: string;
  model: string;
  result: Answer;
  content: OutputBlock[];
  stopReason: StopReason;
  stopSequence: string | null;
  inputTokens: number;
  /** Of inputTokens: read from and written to the prompt cache. */
  cache: CacheUse;
  /** False for the no_usage fault. */
  withUsage: boolean;
  /** How it was served, as usage states it where the request asked: speed and inference_geo. */
  served: { speed?: string; inference_geo?: string };
  /** Usage says how many output tokens were thinking (beta thinking-token-count-2026-05-13). */
  countsThinking: boolean;
}

/** One SSE event; `token` marks events carrying generated text, which latency and cut_after count. */
interface Step {
  event: string;
  data: Record<string, unknown>;
  token: boolean;
}

export async function anthropicMessages(exchange: Exchange, state: SimulatorState): Promise<void> {
  if (!requireAnthropicHeaders(exchange)) return;
  const request = parseOrRefuse(exchange, parseMessagesRequest);
  if (!request) return;
  const apiKey = exchange.request.headers["x-api-key"] as string;
  const fault = resolveFault(state.faults, request.model, lastUserText(request.messages), apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const prefixes = cachePrefixes(exchange.body as Record<string, unknown>, request.model);
  const reply = {
    ...replyFor(request, fault, state.promptCache.use(`anthropic\n${apiKey}\n${request.model}`, prefixes)),
    countsThinking: betasOf(exchange).includes("thinking-token-count-2026-05-13"),
  };
  const pacing = {
    firstTokenMs: state.config.firstTokenLatencyMs,
    tokenMs: fault.tokenLatencyMs ?? state.config.tokenLatencyMs,
  };
  if (request.stream) await streamReply(exchange, reply, fault, pacing);
  else await sendReply(exchange, reply, fault, pacing);
}

/** POST /v1/messages/count_tokens: the input tokens a Messages request with this prompt reports. */
export async function anthropicCountTokens(exchange: Exchange): Promise<void> {
  if (!requireAnthropicHeaders(exchange)) return;
  const request = parseOrRefuse(exchange, parseCountTokensRequest);
  if (!request) return;
  sendJson(exchange, 200, { input_tokens: countPromptTokens(request.messages) }, { "request-id": exchange.id });
}

function parseOrRefuse(exchange: Exchange, parse: (body: unknown) => MessagesRequest): MessagesRequest | undefined {
  try {
    return parse(exchange.body);
  } catch (error) {
    if (!(error instanceof MessagesRequestError)) throw error;
    sendAnthropicError(exchange, 400, error.message);
    return undefined;
  }
}

function betasOf(exchange: Exchange): string[] {
  return [exchange.request.headers["anthropic-beta"] ?? []]
    .flat()
    .flatMap((header) => header.split(","))
    .map((name) => name.trim());
}

function replyFor(request: MessagesRequest, fault: Fault, cache: CacheUse): Omit<Reply, "countsThinking"> {
  const result = answer({ ...request, length: fault.tokens });
  const content: OutputBlock[] = thinkingBlocks(result.reasoning);
  const toolUses: OutputBlock[] = result.toolCalls.map((call) => ({
    type: "tool_use",
    id: call.id.replace(/^call_/, "toolu_"),
    name: call.name,
    input: JSON.parse(call.arguments) as Record<string, unknown>,
  }));
  content.push(...toolUses);
  const text = result.tokens.join("");
  if (result.toolCalls.length === 0 && text !== "") content.push({ type: "text", text });
  const stopSequence = result.finishReason === "stop" ? stopSequenceHit(request, fault) : null;
  return {
    id: `msg_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    model: request.model,
    result,
    content,
    stopReason: stopSequence !== null ? "stop_sequence" : stopReasons[result.finishReason],
    stopSequence,
    inputTokens: countPromptTokens(request.messages),
    cache,
    withUsage: !fault.noUsage,
    served: servedAs(request, fault),
  };
}

/** Claude's thinking comes first, signed so that it can be checked when it comes back. */
function thinkingBlocks(reasoning: string[]): OutputBlock[] {
  if (reasoning.length === 0) return [];
  const thinking = reasoning.join("");
  return [{ type: "thinking", thinking, signature: thinkingSignature(thinking) }];
}

const stopReasons: Record<Answer["finishReason"], StopReason> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
};

/** Which stop sequence ended the answer, if one did: the earliest found in the uncut answer. */
function stopSequenceHit(request: MessagesRequest, fault: Fault): string | null {
  if (request.stop.length === 0) return null;
  const full = answer({ ...request, length: fault.tokens, stop: [], maxTokens: undefined }).tokens.join("");
  let hit: string | null = null;
  let at = Infinity;
  for (const sequence of request.stop) {
    const index = sequence === "" ? -1 : full.indexOf(sequence);
    if (index >= 0 && index < at) [hit, at] = [sequence, index];
  }
  return hit;
}

/** Anthropic's input_tokens leaves out what was read from or written to the cache. */
function usageOf(reply: Reply) {
  const { read, written } = reply.cache;
  return {
    input_tokens: Math.max(0, reply.inputTokens - read - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
    // Anthropic splits the written tokens by the cache's lifetime; every breakpoint here lasts 5 minutes.
    cache_creation: { ephemeral_5m_input_tokens: written, ephemeral_1h_input_tokens: 0 },
    output_tokens: reply.result.completionTokens,
    ...(reply.countsThinking && { output_tokens_details: { thinking_tokens: reply.result.reasoning.length } }),
    service_tier: "standard",
    inference_geo: "not_available",
    ...reply.served,
  };
}

/** Fast mode and US inference as asked, unless the standard_tier fault serves them at standard. */
function servedAs(request: MessagesRequest, fault: Fault): Reply["served"] {
  const served = (standard: string) => (fault.standardTier ? standard : undefined);
  return {
    ...(request.speed && { speed: served("standard") ?? request.speed }),
    ...(request.inferenceGeo && { inference_geo: served("global") ?? request.inferenceGeo }),
  };
}

/** The non-streaming answer; it waits as long as streaming it would have taken. */
async function sendReply(exchange: Exchange, reply: Reply, fault: Fault, pacing: Pacing): Promise<void> {
  const generationMs = pacing.firstTokenMs + pacing.tokenMs * Math.max(0, reply.result.completionTokens - 1);
  if (generationMs > 0 && !(await wait(exchange, generationMs))) return;
  const body = {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content: reply.content,
    stop_reason: reply.stopReason,
    stop_sequence: reply.stopSequence,
    ...(reply.withUsage && { usage: usageOf(reply) }),
  };
  const headers = { "request-id": exchange.id };
  if (fault.cutAfter === undefined) return sendJson(exchange, 200, body, headers);
  // A body cut in half: the closest a non-streaming response gets to a dropped stream.
  const text = JSON.stringify(body);
  writeHead(exchange, 200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  writeThenSever(exchange, text.slice(0, Math.floor(text.length / 2)));
}

/** content_block_start, the deltas and content_block_stop for each output block, in order. */
function blockSteps(reply: Reply): Step[] {
  return reply.content.flatMap((block, index): Step[] => {
    const delta = (data: Record<string, unknown>, token: boolean): Step => ({
      event: "content_block_delta",
      data: { index, delta: data },
      token,
    });
    return [
      { event: "content_block_start", data: { index, content_block: openingOf(block) }, token: false },
      ...blockDeltas(reply, block).map(([data, token]) => delta(data, token)),
      { event: "content_block_stop", data: { index }, token: false },
    ];
  });
}

function openingOf(block: OutputBlock): Record<string, unknown> {
  if (block.type === "text") return { type: "text", text: "" };
  if (block.type === "thinking") return { type: "thinking", thinking: "", signature: "" };
  return { ...block, input: {} };
}

/** Each delta of a block, and whether it carries generated tokens. */
function blockDeltas(reply: Reply, block: OutputBlock): [Record<string, unknown>, boolean][] {
  switch (block.type) {
    case "text":
      return reply.result.tokens.map((text) => [{ type: "text_delta", text }, true]);
    case "thinking":
      // The signature closes the block, after the last of the thinking.
      return [
        ...reply.result.reasoning.map((thinking): [Record<string, unknown>, boolean] => [
          { type: "thinking_delta", thinking },
          true,
        ]),
        [{ type: "signature_delta", signature: block.signature }, false],
      ];
    default:
      // Anthropic opens a tool's arguments with an empty fragment, then sends them in pieces.
      return ["", ...splitPieces(JSON.stringify(block.input), 3)].map((piece) => [
        { type: "input_json_delta", partial_json: piece },
        piece !== "",
      ]);
  }
}

function frame(step: Pick<Step, "event" | "data">): string {
  return `event: ${step.event}\ndata: ${JSON.stringify({ type: step.event, ...step.data })}\n\n`;
}

async function streamReply(exchange: Exchange, reply: Reply, fault: Fault, pacing: Pacing): Promise<void> {
  writeHead(exchange, 200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": exchange.id,
  });
  const usage = usageOf(reply);
  const start = {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    // Anthropic reports the input here and a first output token or so; message_delta has the total.
    usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens) },
  };
  exchange.response.write(frame({ event: "message_start", data: { message: start } }));
  exchange.response.write(frame({ event: "ping", data: {} }));
  if (pacing.firstTokenMs > 0 && !(await wait(exchange, pacing.firstTokenMs))) return;
  if (!(await streamSteps(exchange, blockSteps(reply), fault, pacing.tokenMs))) return;
  const delta = { stop_reason: reply.stopReason, stop_sequence: reply.stopSequence };
  // The final counts: Anthropic repeats the input and cache counts beside the output tokens here.
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens, output_tokens_details } =
    usage;
  const final = {
    input_tokens,
    cache_creation_input_tokens,
    cache_read_input_tokens,
    output_tokens,
    ...(output_tokens_details && { output_tokens_details }),
  };
  const ending = { delta, ...(reply.withUsage && { usage: final }) };
  exchange.response.write(frame({ event: "message_delta", data: ending }));
  exchange.response.end(frame({ event: "message_stop", data: {} }));
}

/**
 * Writes the block events one token's time apart. Returns false when the stream ended early:
 * the client left, or cut_after severed it (at the latest after the last token, so a cut
 * stream never reaches message_delta).
 */
async function streamSteps(exchange: Exchange, steps: Step[], fault: Fault, tokenMs: number): Promise<boolean> {
  const tokens = steps.filter((step) => step.token).length;
  const cutAt = fault.cutAfter === undefined ? Infinity : Math.min(fault.cutAfter, tokens);
  let sent = 0;
  for (const step of steps) {
    if (step.token && sent > 0 && tokenMs > 0 && !(await wait(exchange, tokenMs))) return false;
    if (exchange.closed) return false;
    if (step.token) sent += 1;
    if (sent >= cutAt) {
      writeThenSever(exchange, frame(step));
      return false;
    }
    exchange.response.write(frame(step));
  }
  return true;
}
