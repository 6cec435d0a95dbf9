import { randomBytes } from "node:crypto";
import { type Answer, answer, countPromptTokens, lastUserText } from "../answer.js";
import { automaticPrefixes } from "../automatic-prefixes.js";
import { applyLeadingFaults, type Fault, resolveFault } from "../faults.js";
import { type Exchange, type SimulatorState, sendJson, wait, writeHead, writeThenSever } from "../http.js";
import { requireApiKey, sendGeminiError, sendStatusFault } from "./errors.js";
import {
  GeminiRequestError,
  type GenerateContentRequest,
  parseGenerateContentRequest,
} from "./generate-content-request.js";
import { signsThoughts, thoughtSignature } from "./thought-signatures.js";

interface Pacing {
  firstTokenMs: number;
  tokenMs: number;
}

type Part =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { functionCall: { name: string; args: unknown }; thoughtSignature?: string };

interface Usage {
  promptTokenCount: number;
  promptTokensDetails: { modality: string; tokenCount: number }[];
  candidatesTokenCount: number;
  totalTokenCount: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}

interface Reply {
  model: string;
  responseId: string;
  answers: Answer[];
  usage: Usage | undefined;
  /** Thoughts are sent as `thought: true` parts (thinkingConfig.includeThoughts). */
  showThoughts: boolean;
  /** Gemini 3 signs the first call of an answer, or its text. */
  signed: boolean;
}

/** One streamed event's worth of one candidate; `tokens` is what latency and cut_after count. */
interface Step {
  parts: Part[];
  tokens: number;
}

// Gemini streams text in pieces of several tokens, not token by token.
const tokensPerPiece = 4;
const pathPattern = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent, answered as Gemini
 * would: JSON, SSE with `?alt=sse`, or a streamed JSON array without it.
 */
export async function generateContent(exchange: Exchange, state: SimulatorState): Promise<void> {
  const [, model = "", method] = pathPattern.exec(exchange.path) ?? [];
  const apiKey = requireApiKey(exchange);
  if (!apiKey) return;
  const request = parseOrRefuse(exchange, model);
  if (!request) return;
  const fault = resolveFault(state.faults, model, lastUserText(request.messages), apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  // Gemini's implicit caching: a repeated prompt prefix is read from the cache on its own.
  const cached = state.promptCache.use(`gemini\n${apiKey}\n${model}`, automaticPrefixes(request.messages)).read;
  const reply = replyFor(request, fault, cached);
  const pacing = {
    firstTokenMs: state.config.firstTokenLatencyMs,
    tokenMs: fault.tokenLatencyMs ?? state.config.tokenLatencyMs,
  };
  if (method === "generateContent") return sendReply(exchange, reply, fault, pacing);
  const sse = new URL(exchange.request.url ?? "/", "http://simulator").searchParams.get("alt") === "sse";
  await streamReply(exchange, reply, fault, pacing, sse);
}

function parseOrRefuse(exchange: Exchange, model: string): GenerateContentRequest | undefined {
  try {
    return parseGenerateContentRequest(model, exchange.body);
  } catch (error) {
    if (!(error instanceof GeminiRequestError)) throw error;
    sendGeminiError(exchange, 400, error.message);
    return undefined;
  }
}

function replyFor(request: GenerateContentRequest, fault: Fault, cachedTokens: number): Reply {
  const answers: Answer[] = [];
  for (let choice = 0; choice < request.candidates; choice++) {
    // Gemini calls functions whenever it sees fit; it has no switch against parallel calls.
    answers.push(answer({ ...request, parallelToolCalls: true, length: fault.tokens, choice }));
  }
  return {
    model: request.model,
    responseId: randomBytes(17).toString("base64url").slice(0, 23),
    answers,
    usage: fault.noUsage ? undefined : usageOf(countPromptTokens(request.messages), cachedTokens, answers),
    showThoughts: request.showThoughts,
    signed: signsThoughts(request.model),
  };
}

/** Gemini counts thoughts apart from the candidates' tokens, and reports cached prompt tokens. */
function usageOf(promptTokenCount: number, cachedTokens: number, answers: Answer[]): Usage {
  const thoughts = answers.reduce((sum, result) => sum + result.reasoning.length, 0);
  const candidatesTokenCount = answers.reduce((sum, result) => sum + result.completionTokens, 0) - thoughts;
  return {
    promptTokenCount,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokenCount }],
    candidatesTokenCount,
    totalTokenCount: promptTokenCount + candidatesTokenCount + thoughts,
    ...(thoughts > 0 && { thoughtsTokenCount: thoughts }),
    ...(cachedTokens > 0 && { cachedContentTokenCount: Math.min(cachedTokens, promptTokenCount) }),
  };
}

const finishReasonOf = (result: Answer) => (result.finishReason === "length" ? "MAX_TOKENS" : "STOP");

const signature = (signed: boolean, subject: string) => (signed ? { thoughtSignature: thoughtSignature(subject) } : {});

/** The calls, only the first signed (parallel calls share one signature), or the text, signed. */
function answerParts(result: Answer, signed: boolean): Part[] {
  if (result.toolCalls.length > 0) {
    return result.toolCalls.map((call, index) => ({
      functionCall: { name: call.name, args: JSON.parse(call.arguments) },
      ...signature(signed && index === 0, call.name),
    }));
  }
  return result.tokens.length > 0 ? [{ text: result.tokens.join(""), ...signature(signed, "") }] : [];
}

const thoughtParts = (result: Answer, reply: Reply): Part[] =>
  reply.showThoughts && result.reasoning.length > 0 ? [{ text: result.reasoning.join(""), thought: true }] : [];

const partsOf = (result: Answer, reply: Reply): Part[] => [
  ...thoughtParts(result, reply),
  ...answerParts(result, reply.signed),
];

/** Gemini's note on a candidate that ends with its function calls. */
const callsMessage = "Model generated function call(s).";

/** A candidate; Gemini leaves `parts` out when nothing was generated. */
function candidateOf(index: number, parts: Part[], finishReason?: string) {
  const calls = finishReason === "STOP" && parts.some((part) => "functionCall" in part);
  return {
    content: { ...(parts.length > 0 && { parts }), role: "model" },
    ...(finishReason && { finishReason }),
    index,
    ...(calls && { finishMessage: callsMessage }),
  };
}

/** The non-streaming answer; it waits as long as streaming the longest answer would have taken. */
async function sendReply(exchange: Exchange, reply: Reply, fault: Fault, pacing: Pacing): Promise<void> {
  const longest = Math.max(...reply.answers.map((result) => result.completionTokens));
  const generationMs = pacing.firstTokenMs + pacing.tokenMs * Math.max(0, longest - 1);
  if (generationMs > 0 && !(await wait(exchange, generationMs))) return;
  const body = {
    candidates: reply.answers.map((result, index) =>
      candidateOf(index, partsOf(result, reply), finishReasonOf(result)),
    ),
    ...(reply.usage && { usageMetadata: reply.usage }),
    modelVersion: reply.model,
    responseId: reply.responseId,
  };
  if (fault.cutAfter === undefined) return sendJson(exchange, 200, body);
  // A body cut in half: the closest a non-streaming response gets to a dropped stream.
  const text = JSON.stringify(body);
  writeHead(exchange, 200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  writeThenSever(exchange, text.slice(0, Math.floor(text.length / 2)));
}

/** Thoughts first, whole; then text in pieces of a few tokens, or each function call in a step of its own. */
function stepsOf(result: Answer, reply: Reply): Step[] {
  const thoughts = thoughtParts(result, reply).map((part) => ({ parts: [part], tokens: result.reasoning.length }));
  return [...thoughts, ...answerSteps(result, reply.signed)];
}

/**
 * Gemini 3 ends a stream in an event of its own with an empty text part: after a text, signed
 * (the text's signature); after calls, unsigned (and the calls' event has no finishMessage).
 */
function answerSteps(result: Answer, signed: boolean): Step[] {
  const closing = (thoughtSignature: boolean): Step => ({
    parts: [{ text: "", ...signature(thoughtSignature, "") }],
    tokens: 0,
  });
  if (result.toolCalls.length > 0) {
    const calls = answerParts(result, signed).map((part) => ({ parts: [part], tokens: 1 }));
    return signed ? [...calls, closing(false)] : calls;
  }
  const steps: Step[] = [];
  for (let start = 0; start < result.tokens.length; start += tokensPerPiece) {
    const piece = result.tokens.slice(start, start + tokensPerPiece);
    steps.push({ parts: [{ text: piece.join("") }], tokens: piece.length });
  }
  if (signed && steps.length > 0) steps.push(closing(true));
  // An empty answer still sends one event, to carry its finish reason.
  return steps.length > 0 ? steps : [{ parts: [], tokens: 0 }];
}

interface Frame {
  tokens: number;
  /** The event; `finished` adds the finish reasons and usage a cut stream must never get. */
  body(finished: boolean): unknown;
}

/** Events round by round, candidates side by side; finish reasons and usage ride on the last. */
function framesOf(reply: Reply): Frame[] {
  const plans = reply.answers.map((result) => stepsOf(result, reply));
  const rounds = Math.max(...plans.map((steps) => steps.length));
  const frames: Frame[] = [];
  for (let round = 0; round < rounds; round++) {
    const last = round === rounds - 1;
    let tokens = 0;
    for (const steps of plans) tokens += steps[round]?.tokens ?? 0;
    frames.push({
      tokens,
      body: (finished) => ({
        candidates: plans.flatMap((steps, index) => {
          const step = steps[round];
          if (!step) return [];
          const ends = finished && round === steps.length - 1;
          return [candidateOf(index, step.parts, ends ? finishReasonOf(reply.answers[index]!) : undefined)];
        }),
        ...(finished && last && reply.usage && { usageMetadata: reply.usage }),
        modelVersion: reply.model,
        responseId: reply.responseId,
      }),
    });
  }
  return frames;
}

/**
 * Streams the frames with token pacing. cut_after=N severs the connection once N frames carrying
 * tokens went out (at the latest after the last one), so a cut stream never finishes.
 */
async function streamReply(exchange: Exchange, reply: Reply, fault: Fault, pacing: Pacing, sse: boolean) {
  const contentType = sse ? "text/event-stream" : "application/json; charset=UTF-8";
  writeHead(exchange, 200, { "content-type": contentType, "cache-control": "no-cache" });
  exchange.response.flushHeaders();
  const frames = framesOf(reply);
  const tokenFrames = frames.filter((frame) => frame.tokens > 0).length;
  const cutAt = fault.cutAfter === undefined ? Infinity : Math.min(fault.cutAfter, tokenFrames);
  // Without alt=sse the stream is one JSON array, written element by element.
  const encode = (body: unknown, index: number) =>
    sse ? `data: ${JSON.stringify(body)}\r\n\r\n` : `${index === 0 ? "[" : ",\r\n"}${JSON.stringify(body)}`;
  let sent = 0;
  for (const [index, frame] of frames.entries()) {
    const delayMs =
      index === 0
        ? pacing.firstTokenMs + pacing.tokenMs * Math.max(0, frame.tokens - 1)
        : pacing.tokenMs * frame.tokens;
    if (delayMs > 0 && !(await wait(exchange, delayMs))) return;
    if (exchange.closed) return;
    if (frame.tokens > 0) sent += 1;
    if (sent >= cutAt) {
      writeThenSever(exchange, encode(frame.body(false), index));
      return;
    }
    exchange.response.write(encode(frame.body(true), index));
  }
  exchange.response.end(sse ? "" : "]");
}
