import { mapVendorError, type VendorError } from "@gateway/outbound-http";

// OpenAI's Responses stream is relayed event by event as the vendor's own bytes; only the few
// events the gateway must understand (the terminal ones, which carry usage) are parsed.

const boundaries = [Buffer.from("\n\n"), Buffer.from("\r\n\r\n")];

function nextBoundary(pending: Buffer): { at: number; length: number } | undefined {
  let found: { at: number; length: number } | undefined;
  for (const boundary of boundaries) {
    const at = pending.indexOf(boundary);
    if (at >= 0 && (!found || at < found.at)) found = { at, length: boundary.length };
  }
  return found;
}

/** Cuts an SSE byte stream into events, each as the bytes it arrived as, blank line included. */
export async function* sseEvents(body: AsyncIterable<Buffer | Uint8Array>): AsyncGenerator<Buffer> {
  let pending = Buffer.alloc(0);
  for await (const bytes of body) {
    pending = pending.length === 0 ? Buffer.from(bytes) : Buffer.concat([pending, bytes]);
    let boundary = nextBoundary(pending);
    while (boundary) {
      const end = boundary.at + boundary.length;
      yield pending.subarray(0, end);
      pending = pending.subarray(end);
      boundary = nextBoundary(pending);
    }
  }
  if (pending.toString("utf8").trim() !== "") yield pending;
}

export interface SseFields {
  event: string | undefined;
  data: string;
}

/** An event's name and data, per the SSE format (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export function sseFields(event: Buffer): SseFields {
  let name: string | undefined;
  const data: string[] = [];
  for (const line of event.toString("utf8").split(/\r\n|\r|\n/)) {
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  return { event: name, data: data.join("\n") };
}

// The events that end a response and carry it whole, usage included.
const terminalEvents = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** The response object a terminal event carries; undefined for every other event. */
export function terminalResponse(event: Buffer): unknown {
  const fields = sseFields(event);
  if (fields.event !== undefined && !terminalEvents.has(fields.event)) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(fields.data);
  } catch {
    return undefined;
  }
  const { type, response } = (payload ?? {}) as { type?: unknown; response?: unknown };
  return typeof type === "string" && terminalEvents.has(type) ? response : undefined;
}

const sequenceNumber = /"sequence_number"\s*:\s*(\d+)/;

/**
 * The `error` event that ends a stream the vendor broke off after output had left, numbered after
 * the last event relayed: OpenAI's SDKs throw on it.
 */
export function streamErrorEvent(last: Buffer | undefined, code: string, message: string): Buffer {
  const previous = last ? sequenceNumber.exec(sseFields(last).data)?.[1] : undefined;
  const error = {
    type: "error",
    code,
    message,
    param: null,
    sequence_number: previous === undefined ? 0 : Number(previous) + 1,
  };
  return Buffer.from(`event: error\ndata: ${JSON.stringify(error)}\n\n`);
}

// Events that open every stream before the model produces anything.
const openingEvents = new Set(["response.created", "response.in_progress", "response.queued"]);

/** Whether the event only opens the stream: until another arrives, nothing is output. */
export const opensStream = (event: Buffer) => openingEvents.has(sseFields(event).event ?? "");

// The HTTP status OpenAI answers the same failure with outside a stream
// (https://platform.openai.com/docs/guides/error-codes): so the chat path's mapping applies.
function statusOfStreamError(error: { code?: unknown; type?: unknown }): number {
  if (error.code === "insufficient_quota" || error.code === "rate_limit_exceeded") return 429;
  if (error.type === "invalid_request_error" || error.code === "invalid_prompt") return 400;
  return 500;
}

/**
 * The vendor's failure when a stream fails before any output (an `error` event or
 * `response.failed` right after the opening events): the same error its status would have
 * been, so the key, retry and failover rules of chat apply, and nothing is relayed or billed.
 */
export function failureBeforeOutput(event: Buffer): VendorError | undefined {
  const fields = sseFields(event);
  if (fields.event !== "error" && fields.event !== "response.failed") return undefined;
  let payload: { error?: unknown; response?: { error?: unknown } };
  try {
    payload = JSON.parse(fields.data) as typeof payload;
  } catch {
    payload = {};
  }
  const error = (payload.error ?? payload.response?.error ?? {}) as { code?: unknown; type?: unknown };
  return mapVendorError(statusOfStreamError(error), JSON.stringify({ error }), {});
}
