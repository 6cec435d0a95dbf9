import { bodyText, type Recording } from "./recordings.js";

// biome-ignore lint/suspicious/noExplicitAny: vendor JSON, read field by field with fallbacks.
export type Loose = Record<string, any>;

// What a client of the gateway must see for a recorded vendor answer, read from the vendor's own
// protocol by readers written apart from the gateway's adapters (from the vendors' documented
// shapes), so the two cannot share a misreading.

/**
 * THE usage rule, the same for every family: `completion` includes reasoning, `prompt` includes
 * cached tokens read and written, and `total = prompt + completion`.
 */
export interface NormalisedUsage {
  prompt: number;
  completion: number;
  total: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

export interface ExpectedToolCall {
  name: string;
  /** Parsed from the vendor's JSON text (OpenAI) or taken as the vendor's object (Claude, Gemini). */
  arguments: unknown;
}

/** A chat answer as read from one protocol's wire, its usage as the protocol wrote it. */
export interface ChatAnswer {
  text: string;
  toolCalls: ExpectedToolCall[];
  reasoning: string;
  /** Claude's thinking signatures and redacted thinking, Gemini's thoughtSignatures: opaque, kept exactly. */
  signatures: string[];
  /** Gemini: those of the signatures that came on functionCall parts. */
  callSignatures?: string[];
  finish: FinishReason;
  wireUsage: Loose | undefined;
  /** OpenAI-compatible token logprobs, when the vendor sent some. */
  logprobs?: unknown[];
}

export interface ExpectedChat extends ChatAnswer {
  kind: "chat";
  usage: NormalisedUsage;
}

export interface ExpectedError {
  kind: "error";
  /** The status the gateway answers: the client's mistake stays 400, vendor trouble is 503, our credential 500. */
  status: 400 | 500 | 503;
  /** The wait the vendor asked for (retry-after-ms, retry-after, Google's RetryInfo), in ms. */
  retryAfterMs?: number;
}

export interface ExpectedEmbeddings {
  kind: "embeddings";
  vectors: number[][];
  promptTokens?: number;
}

export interface ExpectedImages {
  kind: "images";
  images: { b64_json: string; revised_prompt?: string }[];
  /** The tokens a GPT image model counted: all input, the images among it, and output. */
  usage?: { input: number; imageInput: number; output: number };
}

export interface ExpectedTranscription {
  kind: "transcription";
  text: string;
  /** The audio length the vendor reported, in seconds. */
  seconds?: number;
}

export type Expected = ExpectedChat | ExpectedError | ExpectedEmbeddings | ExpectedImages | ExpectedTranscription;

export function expectedOf(recording: Recording): Expected {
  if (recording.status >= 400) return expectedError(recording);
  switch (recording.protocol) {
    case "openai-chat": {
      const answer = readOpenAIChat(payloadsOf(recording));
      return { kind: "chat", ...answer, usage: openAIUsage(answer.wireUsage) };
    }
    case "anthropic-messages": {
      const answer = readAnthropicMessages(payloadsOf(recording));
      return { kind: "chat", ...answer, usage: anthropicUsage(answer.wireUsage) };
    }
    case "gemini-generate": {
      const answer = readGeminiGenerate(payloadsOf(recording));
      return { kind: "chat", ...answer, usage: geminiUsage(answer.wireUsage) };
    }
    case "openai-embeddings":
      return openAIEmbeddings(JSON.parse(bodyText(recording)));
    case "gemini-embed":
      return geminiEmbeddings(JSON.parse(bodyText(recording)));
    case "openai-images":
      return openAIImages(JSON.parse(bodyText(recording)));
    case "openai-transcriptions":
      return openAITranscription(bodyText(recording));
    case "openai-responses":
    case "dashscope-image-synthesis":
      throw new Error(`${recording.id}: ${notReplayable(recording)}`);
  }
}

/** Why no request of the gateway's could be answered with this recording, when none could. */
export function notReplayable(recording: Recording): string | undefined {
  if (recording.protocol === "dashscope-image-synthesis") {
    return "one step of an asynchronous task (a submission, then bodiless polls the replay server cannot match): held by the simulator's and the DashScope adapter's own tests";
  }
  if (recording.protocol === "openai-responses") {
    return recording.family === "openai"
      ? "relayed, not translated: held by the relay's own cases (the client reads the vendor's bytes)"
      : "the gateway calls this vendor's chat API: only OpenAI's models are relayed to a Responses API";
  }
  if (recording.status >= 400) return undefined;
  const text = bodyText(recording);
  if (recording.protocol === "gemini-generate" && text.includes('"partialArgs"')) {
    return "a Vertex AI stream with streamFunctionCallArguments, which the gateway never asks for";
  }
  if (recording.protocol === "gemini-generate" && text.includes('"inlineData"')) {
    return "an image answer (inlineData parts): the catalogue serves no Gemini image-output model";
  }
  if (recording.protocol === "openai-images" && !text.includes('"b64_json"')) {
    return "images answered as URLs: the gateway asks vendors for b64_json";
  }
  return undefined;
}

/** The JSON payloads of the answer: the one body, or each event of a stream (framed or not). */
export function payloadsOf(recording: Recording): Loose[] {
  if (recording.body.kind === "events") return recording.body.payloads.map((payload) => JSON.parse(payload));
  const text = recording.body.bytes.toString("utf8");
  if (!recording.stream) return [JSON.parse(text)];
  return sseData(text)
    .filter((data) => data !== "[DONE]")
    .map((data) => JSON.parse(data));
}

/** The data of each event of a raw SSE stream (multi-line data joined, CRLF or LF framing). */
export function sseData(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n"),
    )
    .filter((data) => data !== "");
}

// ---- usage ---------------------------------------------------------------------------------

const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);

function normalised(prompt: number, completion: number, cacheRead: number, cacheWrite: number, reasoning: number) {
  return { prompt, completion, total: prompt + completion, cacheRead, cacheWrite, reasoning };
}

/**
 * OpenAI's usage and its compatible vendors' variants: DeepSeek's prompt_cache_hit_tokens, Kimi's
 * top-level cached_tokens; a vendor whose total is prompt + completion + reasoning (xAI) reports
 * reasoning apart from completion_tokens, so it is added.
 */
export function openAIUsage(usage: Loose | undefined | null): NormalisedUsage {
  const prompt = count(usage?.prompt_tokens);
  const reported = count(usage?.completion_tokens);
  const reasoning = count(usage?.completion_tokens_details?.reasoning_tokens);
  const cacheRead = count(
    usage?.prompt_tokens_details?.cached_tokens ?? usage?.prompt_cache_hit_tokens ?? usage?.cached_tokens,
  );
  const cacheWrite = count(usage?.prompt_tokens_details?.cache_write_tokens);
  const reasoningApart = reasoning > 0 && count(usage?.total_tokens) === prompt + reported + reasoning;
  return normalised(prompt, reported + (reasoningApart ? reasoning : 0), cacheRead, cacheWrite, reasoning);
}

/**
 * Anthropic's input is split three ways (uncached, cache read, cache written); output includes
 * thinking, whose share newer answers state (output_tokens_details.thinking_tokens).
 */
export function anthropicUsage(usage: Loose | undefined): NormalisedUsage {
  const cacheRead = count(usage?.cache_read_input_tokens);
  const cacheWrite = count(usage?.cache_creation_input_tokens);
  return normalised(
    count(usage?.input_tokens) + cacheRead + cacheWrite,
    count(usage?.output_tokens),
    cacheRead,
    cacheWrite,
    count(usage?.output_tokens_details?.thinking_tokens),
  );
}

/**
 * Gemini counts thoughts apart from candidates; the prompt includes the cached part, and tool-use
 * prompt tokens (the search results a grounded answer read) are input too.
 */
export function geminiUsage(metadata: Loose | undefined): NormalisedUsage {
  const prompt = count(metadata?.promptTokenCount) + count(metadata?.toolUsePromptTokenCount);
  const thoughts = count(metadata?.thoughtsTokenCount);
  return normalised(
    prompt,
    count(metadata?.candidatesTokenCount) + thoughts,
    count(metadata?.cachedContentTokenCount),
    0,
    thoughts,
  );
}

// ---- chat answers --------------------------------------------------------------------------

const parseArguments = (text: string): unknown => {
  try {
    return JSON.parse(text.trim() === "" ? "{}" : text);
  } catch {
    return text;
  }
};

/** A chat completion, or its stream chunks (deltas joined, tool calls by index). */
export function readOpenAIChat(payloads: Loose[]): ChatAnswer {
  let text = "";
  let reasoning = "";
  let finish: string | undefined;
  let usage: Loose | undefined;
  const calls: { name: string; arguments: string }[] = [];
  const logprobs: unknown[] = [];
  for (const payload of payloads) {
    if (payload.usage) usage = payload.usage;
    const choice = payload.choices?.[0];
    if (!choice) continue;
    // A whole completion has `message`; a stream chunk has `delta`.
    const part = choice.message ?? choice.delta ?? {};
    text += part.content ?? "";
    reasoning += part.reasoning_content ?? part.reasoning ?? "";
    logprobs.push(...(choice.logprobs?.content ?? []));
    for (const [position, call] of (part.tool_calls ?? []).entries()) {
      const index = choice.message ? position : (call.index ?? position);
      calls[index] ??= { name: "", arguments: "" };
      calls[index].name += call.function?.name ?? "";
      calls[index].arguments += call.function?.arguments ?? "";
    }
    finish = choice.finish_reason ?? finish;
  }
  return {
    text,
    reasoning,
    signatures: [],
    toolCalls: calls.map((call) => ({ name: call.name, arguments: parseArguments(call.arguments) })),
    finish: openAIFinish(finish),
    wireUsage: usage,
    ...(logprobs.length > 0 && { logprobs }),
  };
}

function openAIFinish(reason: string | undefined): FinishReason {
  if (reason === "function_call") return "tool_calls";
  return reason === "length" || reason === "tool_calls" || reason === "content_filter" ? reason : "stop";
}

const anthropicFinish: Record<string, FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

/** A Messages answer, whole or as its stream events (blocks rebuilt from their deltas). */
export function readAnthropicMessages(payloads: Loose[]): ChatAnswer {
  const blocks: Loose[] = [];
  let stopReason: string | undefined;
  let usage: Loose = {};
  for (const payload of payloads) {
    switch (payload.type) {
      case "message":
        blocks.push(...payload.content);
        stopReason = payload.stop_reason;
        usage = payload.usage ?? {};
        break;
      case "message_start":
        blocks.push(...(payload.message.content ?? []));
        usage = { ...payload.message.usage };
        break;
      case "content_block_start":
        blocks[payload.index] = { ...payload.content_block, partial: "" };
        break;
      case "content_block_delta": {
        const block = blocks[payload.index]!;
        const delta = payload.delta;
        if (delta.type === "text_delta") block.text += delta.text;
        if (delta.type === "thinking_delta") block.thinking += delta.thinking;
        if (delta.type === "signature_delta") block.signature = (block.signature ?? "") + delta.signature;
        if (delta.type === "input_json_delta") block.partial += delta.partial_json;
        break;
      }
      case "message_delta":
        stopReason = payload.delta?.stop_reason ?? stopReason;
        // Its counts are cumulative and replace message_start's.
        for (const [name, value] of Object.entries(payload.usage ?? {})) if (value !== null) usage[name] = value;
        break;
    }
  }
  const present = blocks.filter(Boolean);
  return {
    text: present.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(""),
    reasoning: present.flatMap((block) => (block.type === "thinking" ? [block.thinking] : [])).join(""),
    signatures: present.flatMap((block) =>
      block.type === "thinking" && block.signature
        ? [block.signature]
        : block.type === "redacted_thinking"
          ? [block.data]
          : [],
    ),
    toolCalls: present
      .filter((block) => block.type === "tool_use")
      .map((block) => ({
        name: block.name,
        arguments: block.partial ? parseArguments(block.partial) : (block.input ?? {}),
      })),
    finish: anthropicFinish[stopReason ?? ""] ?? "stop",
    wireUsage: usage,
  };
}

const geminiBlocked = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

/** A generateContent answer, or the GenerateContentResponse each streamed event is. */
export function readGeminiGenerate(payloads: Loose[]): ChatAnswer {
  let text = "";
  let reasoning = "";
  const signatures: string[] = [];
  const callSignatures: string[] = [];
  const toolCalls: ExpectedToolCall[] = [];
  let finishReason: string | undefined;
  let blocked = false;
  let metadata: Loose | undefined;
  for (const payload of payloads) {
    if (payload.usageMetadata) metadata = payload.usageMetadata;
    if (payload.promptFeedback?.blockReason) blocked = true;
    const candidate = payload.candidates?.[0];
    if (!candidate) continue;
    finishReason = candidate.finishReason ?? finishReason;
    for (const part of candidate.content?.parts ?? []) {
      if (part.thoughtSignature) signatures.push(part.thoughtSignature);
      if (part.thoughtSignature && part.functionCall) callSignatures.push(part.thoughtSignature);
      if (part.functionCall) toolCalls.push({ name: part.functionCall.name, arguments: part.functionCall.args ?? {} });
      else if (part.thought) reasoning += part.text ?? "";
      else text += part.text ?? "";
    }
  }
  let finish: FinishReason = "stop";
  if (blocked || geminiBlocked.has(finishReason ?? "")) finish = "content_filter";
  else if (finishReason === "MAX_TOKENS") finish = "length";
  else if (toolCalls.length > 0) finish = "tool_calls";
  return { text, reasoning, signatures, callSignatures, toolCalls, finish, wireUsage: metadata };
}

// ---- other endpoints -----------------------------------------------------------------------

function openAIEmbeddings(body: Loose): ExpectedEmbeddings {
  return {
    kind: "embeddings",
    vectors: [...body.data].sort((a, b) => a.index - b.index).map((item) => item.embedding),
    promptTokens: body.usage?.prompt_tokens,
  };
}

function geminiEmbeddings(body: Loose): ExpectedEmbeddings {
  const embeddings: Loose[] = body.embeddings ?? [body.embedding];
  return { kind: "embeddings", vectors: embeddings.map((embedding) => embedding.values) };
}

function openAIImages(body: Loose): ExpectedImages {
  return {
    kind: "images",
    images: body.data.map((item: Loose) => ({
      b64_json: item.b64_json,
      ...(item.revised_prompt && { revised_prompt: item.revised_prompt }),
    })),
    ...(body.usage && {
      usage: {
        input: body.usage.input_tokens,
        imageInput: body.usage.input_tokens_details?.image_tokens ?? 0,
        output: body.usage.output_tokens,
      },
    }),
  };
}

function openAITranscription(text: string): ExpectedTranscription {
  try {
    const body = JSON.parse(text) as Loose;
    const seconds = body.duration ?? (body.usage?.type === "duration" ? body.usage.seconds : undefined);
    return { kind: "transcription", text: body.text, ...(seconds !== undefined && { seconds }) };
  } catch {
    return { kind: "transcription", text };
  }
}

// ---- errors --------------------------------------------------------------------------------

// Gemini and xAI answer a bad key with 400; that is the gateway's credential, not the client's mistake.
const credentialRejected = /API_KEY_INVALID|Incorrect API key|invalid api key|invalid x-api-key/i;

function expectedError(recording: Recording): ExpectedError {
  const text = bodyText(recording);
  const { status } = recording;
  const retryAfterMs = vendorRetryAfterMs(recording.headers, text);
  if ([400, 413, 422].includes(status) && !credentialRejected.test(text)) return { kind: "error", status: 400 };
  if ([408, 409, 429].includes(status) || status >= 500) {
    return { kind: "error", status: 503, ...(retryAfterMs !== undefined && { retryAfterMs }) };
  }
  return { kind: "error", status: 500 };
}

/** The wait a vendor asked for: its retry-after-ms or retry-after header, or Google's RetryInfo detail. */
export function vendorRetryAfterMs(headers: Record<string, string>, body: string): number | undefined {
  const milliseconds = Number(headers["retry-after-ms"]);
  if (milliseconds > 0) return milliseconds;
  const seconds = Number(headers["retry-after"]);
  if (seconds > 0) return seconds * 1000;
  try {
    const details = (JSON.parse(body) as Loose).error?.details as Loose[] | undefined;
    const delay = details?.find((detail) => String(detail["@type"]).endsWith("google.rpc.RetryInfo"))?.retryDelay;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(String(delay));
    if (match) return Math.round(Number(match[1]) * 1000);
  } catch {
    // Not JSON: no wait in the body.
  }
  return undefined;
}
