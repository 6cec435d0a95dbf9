import type { ChatChunk, ChatCompletion, ChatRequest, Message, ToolCall } from "@gateway/proto/router/v1/chat";
import type { StreamRendering } from "./http/relay-call.js";

// Gemini 3 signs its function calls (thoughtSignature) and refuses a tool loop whose calls come
// back unsigned. The OpenAI chat, Responses and Anthropic Messages formats have no field for it,
// but their clients, the official SDKs included, send a call's id back untouched, since the tool
// result must name it. So on those ingresses the signature rides in the id, as LiteLLM carries
// it: `<id>__thought__<signature>`, the signature in base64url without padding, which keeps the
// id within [A-Za-z0-9_-] (Anthropic's rule for tool_use ids) and restores Google's base64
// exactly. Edge splits it off again before the request reaches router, so no vendor sees it.

const separator = "__thought__";

/** A call's id with its signature, as the client is shown it. */
export function idWithSignature(id: string, signature: string | undefined): string {
  if (!signature) return id;
  return `${id}${separator}${signature.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
}

/** The id the vendor gave, and the signature the client carried in it. */
export function splitCallId(id: string): { id: string; thoughtSignature?: string } {
  const at = id.indexOf(separator);
  if (at < 0) return { id };
  const encoded = id
    .slice(at + separator.length)
    .replace(/-/g, "+")
    .replace(/_/g, "/");
  const thoughtSignature = encoded === "" ? undefined : encoded.padEnd(Math.ceil(encoded.length / 4) * 4, "=");
  return { id: id.slice(0, at), thoughtSignature };
}

function splitCall(call: ToolCall): ToolCall {
  const { id, thoughtSignature } = splitCallId(call.id);
  return { ...call, id, thoughtSignature: thoughtSignature ?? call.thoughtSignature };
}

const splitMessage = (message: Message): Message => ({
  ...message,
  toolCalls: message.toolCalls.map(splitCall),
  toolCallId: message.toolCallId === undefined ? undefined : splitCallId(message.toolCallId).id,
});

const carriesSignature = (message: Message) =>
  message.toolCallId?.includes(separator) || message.toolCalls.some((call) => call.id.includes(separator));

/**
 * The request with each call's signature taken out of the ids the client sent back; a request
 * that carries none (every request without a Gemini 3 tool loop) is passed on as it is.
 */
export const signaturesFromCallIds = (request: ChatRequest): ChatRequest =>
  request.messages.some(carriesSignature) ? { ...request, messages: request.messages.map(splitMessage) } : request;

const carry = <Call extends { id?: string; thoughtSignature?: string }>(call: Call): Call =>
  call.id === undefined || !call.thoughtSignature
    ? call
    : { ...call, id: idWithSignature(call.id, call.thoughtSignature) };

/** The answer with each signed call's signature in its id. */
export const signaturesIntoCallIds = (completion: ChatCompletion): ChatCompletion => ({
  ...completion,
  choices: completion.choices.map((choice) =>
    choice.message
      ? { ...choice, message: { ...choice.message, toolCalls: choice.message.toolCalls.map(carry) } }
      : choice,
  ),
});

const signed = (chunk: ChatChunk) =>
  chunk.choices.some((choice) => choice.delta?.toolCalls.some((call) => call.thoughtSignature));

/** A stream chunk with each signed call's signature in its id (on the fragment naming the id). */
export function chunkSignaturesIntoCallIds(chunk: ChatChunk): ChatChunk {
  if (!signed(chunk)) return chunk;
  return {
    ...chunk,
    choices: chunk.choices.map((choice) =>
      choice.delta ? { ...choice, delta: { ...choice.delta, toolCalls: choice.delta.toolCalls.map(carry) } } : choice,
    ),
  };
}

/** A stream rendering shown calls with their signatures in their ids. */
export function carryingSignaturesInCallIds(rendering: StreamRendering<ChatChunk>): StreamRendering<ChatChunk> {
  return {
    open: (first) => rendering.open(first && chunkSignaturesIntoCallIds(first)),
    chunk: (chunk) => rendering.chunk(chunkSignaturesIntoCallIds(chunk)),
    close: () => rendering.close(),
    fail: (error) => rendering.fail(error),
  };
}
