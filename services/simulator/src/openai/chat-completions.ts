import { randomUUID } from "node:crypto";
import { type Answer, answer, countPromptTokens, lastUserText, splitPieces, type ToolCall } from "../answer.js";
import { automaticPrefixes } from "../automatic-prefixes.js";
import { applyLeadingFaults, type Fault, resolveFault } from "../faults.js";
import { type Exchange, type SimulatorState, sendJson, wait, writeHead, writeThenSever } from "../http.js";
import { cachedUsageFields } from "./automatic-cache.js";
import { type ChatRequest, hidesReasoning, parseChatRequest } from "./chat-request.js";
import { parsedOrRefused, requireApiKey, sendStatusFault } from "./errors.js";
import { logprobsOf } from "./logprobs.js";
import {
  contentBesideToolCalls,
  numbersToolCalls,
  openAIExtras,
  reportsReasoningApart,
  roleOnFirstPiece,
  usageOnFinishChunk,
  xaiUsageExtras,
} from "./vendor-quirks.js";

interface Pacing {
  firstTokenMs: number;
  tokenMs: number;
}

/** What all chunks or the one completion of a response share. */
interface Reply {
  id: string;
  created: number;
  model: string;
  answers: Answer[];
  usage: ReturnType<typeof usageOf> | undefined;
  /** `top_logprobs` when the request asked for logprobs. */
  topLogprobs: number | undefined;
  /** The tier that served it, as OpenAI names it on the completion and every chunk. */
  serviceTier: string;
}

interface Step {
  delta: Record<string, unknown>;
  /** Whether the step carries generated text, which is what latency and cut_after count. */
  token: boolean;
  /** The step's content token, whose log probability goes with it when asked for. */
  content?: string;
}

const fingerprint = "fp_sim";
// Tiers served as asked; any other ("auto", "default", none) is served by the default tier.
const servedTiers = new Set(["priority", "flex"]);

/** POST /v1/chat/completions, answered as OpenAI would, JSON or SSE. */
export async function chatCompletions(exchange: Exchange, state: SimulatorState): Promise<void> {
  if (!requireApiKey(exchange)) return;
  const chat = parsedOrRefused(exchange, parseChatRequest);
  if (!chat) return;
  const apiKey = exchange.request.headers.authorization?.replace(/^Bearer\s+/i, "");
  const fault = resolveFault(state.faults, chat.model, lastUserText(chat.messages), apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const cached = state.promptCache.use(`openai\n${apiKey}\n${chat.model}`, automaticPrefixes(chat.messages)).read;
  const reply = replyFor(chat, fault, cached);
  const pacing = {
    firstTokenMs: state.config.firstTokenLatencyMs,
    tokenMs: fault.tokenLatencyMs ?? state.config.tokenLatencyMs,
  };
  if (chat.stream) await streamReply(exchange, reply, fault, pacing);
  else await sendReply(exchange, reply, fault, pacing);
}

function replyFor(chat: ChatRequest, fault: Fault, cachedTokens: number): Reply {
  const answers: Answer[] = [];
  for (let choice = 0; choice < chat.choices; choice++) answers.push(answer({ ...chat, length: fault.tokens, choice }));
  const wantsUsage = (!chat.stream || chat.includeUsage) && !fault.noUsage;
  return {
    id: `chatcmpl-${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    created: Math.floor(Date.now() / 1000),
    model: chat.model,
    answers,
    usage: wantsUsage ? usageOf(chat.model, countPromptTokens(chat.messages), cachedTokens, answers) : undefined,
    topLogprobs: chat.topLogprobs,
    serviceTier: servedTiers.has(chat.serviceTier) && !fault.standardTier ? chat.serviceTier : "default",
  };
}

function usageOf(model: string, promptTokens: number, cachedTokens: number, answers: Answer[]) {
  let completionTokens = 0;
  let reasoningTokens = 0;
  for (const { completionTokens: tokens, reasoning } of answers) {
    completionTokens += tokens;
    reasoningTokens += reasoning.length;
  }
  const cached = cachedUsageFields(model, promptTokens, Math.min(cachedTokens, promptTokens));
  const extras = openAIExtras(model) ?? xaiUsageExtras(model, promptTokens, completionTokens);
  if (extras) cached.prompt_tokens_details = { ...(cached.prompt_tokens_details as object), ...extras.promptDetails };
  return {
    prompt_tokens: promptTokens,
    completion_tokens: reportsReasoningApart(model) ? completionTokens - reasoningTokens : completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...cached,
    completion_tokens_details: { reasoning_tokens: reasoningTokens, ...extras?.completionDetails },
    ...(extras && "fields" in extras && extras.fields),
  };
}

function toolCallsOf(calls: ToolCall[], model: string) {
  const numbered = numbersToolCalls(model);
  return calls.map(({ id, name, arguments: text }, index) => ({
    ...(numbered && { index }),
    id,
    type: "function",
    function: { name, arguments: text },
  }));
}

/** The reasoning a model shows: DeepSeek, Qwen and Kimi show theirs; OpenAI's reasoners only count it. */
const shownReasoning = (result: Answer, model: string) => (hidesReasoning(model) ? [] : result.reasoning);

function messageOf(result: Answer, model: string): Record<string, unknown> {
  const calling = result.toolCalls.length > 0;
  const content = calling ? contentBesideToolCalls(model) : result.tokens.join("");
  const message: Record<string, unknown> = { role: "assistant", content };
  const reasoning = shownReasoning(result, model);
  if (reasoning.length > 0) message.reasoning_content = reasoning.join("");
  message.refusal = null;
  if (calling) message.tool_calls = toolCallsOf(result.toolCalls, model);
  if (openAIExtras(model)) message.annotations = [];
  return message;
}

/** The non-streaming answer; it waits as long as streaming the longest answer would have taken. */
async function sendReply(exchange: Exchange, reply: Reply, fault: Fault, pacing: Pacing): Promise<void> {
  const longest = Math.max(...reply.answers.map((result) => result.completionTokens));
  const generationMs = pacing.firstTokenMs + pacing.tokenMs * Math.max(0, longest - 1);
  if (generationMs > 0 && !(await wait(exchange, generationMs))) return;
  const body = {
    id: reply.id,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices: reply.answers.map((result, index) => ({
      index,
      message: messageOf(result, reply.model),
      logprobs: reply.topLogprobs === undefined ? null : logprobsOf(result.tokens, reply.topLogprobs),
      finish_reason: result.finishReason,
    })),
    usage: reply.usage,
    ...(openAIExtras(reply.model) && { service_tier: reply.serviceTier }),
    system_fingerprint: fingerprint,
  };
  if (fault.cutAfter === undefined) return sendJson(exchange, 200, body);
  // A body cut in half: the closest a non-streaming response gets to a dropped stream.
  const text = JSON.stringify(body);
  writeHead(exchange, 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  writeThenSever(exchange, text.slice(0, Math.floor(text.length / 2)));
}

function stepsOf(result: Answer, model: string): Step[] {
  const steps = vendorSteps(result, model);
  const [opening, first, ...rest] = steps;
  if (!roleOnFirstPiece(model) || !opening || !first || "tool_calls" in opening.delta) return steps;
  return [{ ...first, delta: { ...first.delta, role: "assistant" } }, ...rest];
}

function vendorSteps(result: Answer, model: string): Step[] {
  const reasoning = shownReasoning(result, model).map((piece) => ({
    delta: { content: null, reasoning_content: piece },
    token: true,
  }));
  if (result.toolCalls.length === 0) {
    const content = result.tokens.map((token) => ({ delta: { content: token }, token: true, content: token }));
    const opening = { role: "assistant", content: "", ...(openAIExtras(model) && { refusal: null }) };
    return [{ delta: opening, token: false }, ...reasoning, ...content];
  }
  const calls = result.toolCalls.flatMap(toolCallSteps);
  const role = { role: "assistant", content: null };
  if (reasoning.length > 0) return [{ delta: role, token: false }, ...reasoning, ...calls];
  // OpenAI announces the role in the same chunk as the first call.
  calls[0]!.delta = { ...role, ...calls[0]!.delta };
  return calls;
}

/** OpenAI's fragment pattern: id and name with empty arguments, then pieces of the arguments. */
function toolCallSteps(call: ToolCall, index: number): Step[] {
  const opening = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
  const pieces = splitPieces(call.arguments, 3).map((piece) => ({
    delta: { tool_calls: [{ index, function: { arguments: piece } }] },
    token: true,
  }));
  return [{ delta: { tool_calls: [opening] }, token: false }, ...pieces];
}

/** Serialises the shared part of every chunk once; each frame only adds its choices (and usage). */
function frameWriter(reply: Reply) {
  const head = JSON.stringify({
    id: reply.id,
    object: "chat.completion.chunk",
    created: reply.created,
    model: reply.model,
    ...(openAIExtras(reply.model) && { service_tier: reply.serviceTier }),
    system_fingerprint: fingerprint,
  }).slice(0, -1);
  // OpenAI marks every chunk with "usage":null only when a usage chunk will follow.
  return (choices: unknown[], usage: unknown = null) => {
    const usageField = reply.usage ? `,"usage":${JSON.stringify(usage)}` : "";
    return `data: ${head},"choices":${JSON.stringify(choices)}${usageField}}\n\n`;
  };
}

async function streamReply(exchange: Exchange, reply: Reply, fault: Fault, pacing: Pacing): Promise<void> {
  writeHead(exchange, 200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  exchange.response.flushHeaders();
  if (pacing.firstTokenMs > 0 && !(await wait(exchange, pacing.firstTokenMs))) return;
  const frame = frameWriter(reply);
  if (
    !(await streamSteps(
      exchange,
      reply.answers.map((result) => stepsOf(result, reply.model)),
      frame,
      fault,
      pacing.tokenMs,
      reply.topLogprobs,
    ))
  )
    return;
  const response = exchange.response;
  const usageWithFinish = usageOnFinishChunk(reply.model);
  const finishDelta = usageWithFinish ? { content: "" } : {};
  for (const [index, result] of reply.answers.entries()) {
    const choices = [{ index, delta: finishDelta, logprobs: null, finish_reason: result.finishReason }];
    const last = index === reply.answers.length - 1;
    response.write(usageWithFinish && last && reply.usage ? frame(choices, reply.usage) : frame(choices));
  }
  if (reply.usage && !usageWithFinish) response.write(frame([], reply.usage));
  response.end("data: [DONE]\n\n");
}

/**
 * Writes the choices' steps round by round, interleaved as OpenAI does for `n` > 1. Returns false
 * when the stream ended early: the client left, or cut_after severed it (at the latest after the
 * last token, so a cut stream never finishes).
 */
async function streamSteps(
  exchange: Exchange,
  plans: Step[][],
  frame: (choices: unknown[]) => string,
  fault: Fault,
  tokenMs: number,
  topLogprobs: number | undefined,
): Promise<boolean> {
  const rounds = Math.max(...plans.map((steps) => steps.length));
  const cutAt = fault.cutAfter === undefined ? Infinity : Math.min(fault.cutAfter, countTokens(plans));
  let sent = 0;
  for (let round = 0; round < rounds; round++) {
    // The role chunk and the first token leave together; each later round is one token's time apart.
    if (round > 1 && tokenMs > 0 && !(await wait(exchange, tokenMs))) return false;
    if (exchange.closed) return false;
    for (const [index, steps] of plans.entries()) {
      const step = steps[round];
      if (!step) continue;
      if (step.token) sent += 1;
      const logprobs =
        topLogprobs === undefined || step.content === undefined ? null : logprobsOf([step.content], topLogprobs);
      const data = frame([{ index, delta: step.delta, logprobs, finish_reason: null }]);
      if (sent >= cutAt) {
        writeThenSever(exchange, data);
        return false;
      }
      exchange.response.write(data);
    }
  }
  return true;
}

function countTokens(plans: Step[][]): number {
  let tokens = 0;
  for (const steps of plans) for (const step of steps) if (step.token) tokens += 1;
  return tokens;
}
