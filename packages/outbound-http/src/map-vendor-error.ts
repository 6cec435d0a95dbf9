import type { IncomingHttpHeaders } from "node:http";
import { type GatewayError, invalidRequest, redactSecrets, serverError, serviceUnavailable } from "@gateway/platform";
import { keyRefusalOf } from "./key-refusal.js";
import { VendorError } from "./vendor-error.js";
import { vendorRetryAfterMs } from "./vendor-retry-after.js";

/** Vendors answer in several error shapes (OpenAI's, xAI's flat one, Kimi's); take the message. */
function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error === "string") return error;
  if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message;
  }
  return typeof message === "string" ? message : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: no message, no retry hint.
    return undefined;
  }
}

// Only the head of an error body is searched for its event, so a huge one costs little.
const SCANNED_ERROR_CHARS = 16_384;

/**
 * The error as JSON. A vendor asked for a stream may frame even its refusal as an event
 * (Qwen answers a streamed 400 with `data: {"error":…}`): the first data line is the error.
 */
function parseBody(text: string): unknown {
  const head = text.slice(0, SCANNED_ERROR_CHARS);
  const event = /^data:[ \t]?(.*)$/m.exec(head);
  return event && !head.trimStart().startsWith("{") ? parseJson(event[1]!) : parseJson(text);
}

// What an operator may read of the vendor's answer: enough to tell the cause, never a key.
const MAX_VENDOR_MESSAGE_CHARS = 300;

/**
 * Maps a vendor's HTTP failure to what our client should see. The client's own mistakes
 * (400/413/422) keep the vendor's explanation, with anything key-like removed; failures of
 * the vendor or of our credentials (a refused key, a spent vendor balance, whatever the status)
 * become generic 5xx errors so no internals leak, with the wait the vendor asked for.
 */
export function mapVendorError(status: number, text: string, headers: IncomingHttpHeaders): VendorError {
  const body = parseBody(text);
  const keyRefusal = keyRefusalOf(status, text);
  const vendorMessage = redactSecrets(messageOf(body) ?? text).slice(0, MAX_VENDOR_MESSAGE_CHARS);
  const shown = keyRefusal
    ? serverError("The model provider refused the gateway's request.")
    : clientError(status, headers, body);
  return new VendorError(shown, status, vendorMessage, keyRefusal);
}

function clientError(status: number, headers: IncomingHttpHeaders, body: unknown): GatewayError {
  if (status === 400 || status === 413 || status === 422) {
    const message = redactSecrets(messageOf(body) ?? "") || "The model provider rejected the request.";
    return invalidRequest(message, null, "vendor_rejected_request");
  }
  if (status === 408 || status === 409 || status === 429 || status >= 500) {
    return serviceUnavailable(
      "The model provider is overloaded or unavailable. Please retry.",
      vendorRetryAfterMs(headers, body),
    );
  }
  return serverError("The model provider refused the gateway's request.");
}
