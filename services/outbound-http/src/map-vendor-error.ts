import type { IncomingHttpHeaders } from "node:http";
import { type GatewayError, invalidRequest, redactSecrets, serverError, serviceUnavailable } from "@gateway/shared";

/** Vendors answer in several error shapes (OpenAI's, xAI's flat one, Kimi's); take the message. */
function vendorMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const error = body.error;
    if (typeof error === "string") return error;
    if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") {
      return (error as { message: string }).message;
    }
    if (typeof body.message === "string") return body.message;
  } catch {
    // Not JSON: fall through to no message.
  }
  return undefined;
}

function retryAfterMs(headers: IncomingHttpHeaders): number {
  const milliseconds = Number(headers["retry-after-ms"]);
  if (Number.isFinite(milliseconds) && milliseconds > 0) return milliseconds;
  const seconds = Number(headers["retry-after"]);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000;
}

/**
 * Maps a vendor's HTTP failure to what our client should see. The client's own mistakes
 * (400/413/422) keep the vendor's explanation, with anything key-like removed; failures of
 * the vendor or of our credentials become generic 5xx errors so no internals leak.
 */
// Gemini and xAI reject a bad credential with 400, which would otherwise read as the client's mistake.
const credentialRejected = /API_KEY_INVALID|Incorrect API key|invalid api key/i;

export function mapVendorError(status: number, text: string, headers: IncomingHttpHeaders): GatewayError {
  if ((status === 400 || status === 413 || status === 422) && !credentialRejected.test(text)) {
    const message = redactSecrets(vendorMessage(text) ?? "") || "The model provider rejected the request.";
    return invalidRequest(message, null, "vendor_rejected_request");
  }
  if (status === 408 || status === 409 || status === 429 || status >= 500) {
    return serviceUnavailable("The model provider is overloaded or unavailable. Please retry.", retryAfterMs(headers));
  }
  return serverError("The model provider refused the gateway's request.");
}
