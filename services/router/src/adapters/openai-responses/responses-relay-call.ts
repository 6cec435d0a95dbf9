import { mapVendorError, type VendorError } from "@gateway/outbound-http";
import { redactSecrets } from "@gateway/platform";
import type { RelayResponseRequest } from "@gateway/proto/router/v1/responses_relay";
import type { Dispatcher } from "undici";
import { postJsonBytes, transportError } from "../../vendor-http/vendor-client.js";
import type { AdapterCall } from "../chat-adapter.js";
import { bodyForVendor } from "./responses-body.js";

/** What OpenAI's Responses API answered one attempt: its answer to relay, or its verdict on the request. */
export type ResponsesAnswer =
  | { refused: false; status: number; contentType: string; body: AsyncIterable<Buffer> }
  // The vendor's explanation of the client's own mistake (400, 413, 422), relayed with its status.
  | { refused: true; status: number; contentType: string; bytes: Buffer; error: VendorError };

async function* bytesOf(response: Dispatcher.ResponseData, signal: AbortSignal): AsyncGenerator<Buffer> {
  try {
    for await (const bytes of response.body) yield bytes as Buffer;
  } catch (error) {
    throw transportError(error, signal);
  } finally {
    // Ends the vendor request when the relay stops early (the client left).
    if (!response.body.destroyed) response.body.destroy();
  }
}

/**
 * Posts the client's body to `<channel base URL>/responses` (https://platform.openai.com/docs/api-reference/responses/create).
 * The vendor's failures are thrown as the chat adapters throw them, so failover, key refusal and
 * circuits treat them alike; only a refusal of the request itself comes back, to be relayed.
 */
export async function postResponses({
  request,
  model,
  channel,
  signal,
  timeouts,
}: AdapterCall<RelayResponseRequest>): Promise<ResponsesAnswer> {
  const response = await postJsonBytes({
    url: `${channel.baseUrl}/responses`,
    headers: { authorization: `Bearer ${channel.key.secret}` },
    body: bodyForVendor(request.body, request.model, model.id),
    signal,
    timeouts,
  });
  const contentType = String(response.headers["content-type"] ?? "application/json");
  if (response.statusCode < 400)
    return { refused: false, status: response.statusCode, contentType, body: bytesOf(response, signal) };
  const text = await response.body.text().catch(() => "");
  const error = mapVendorError(response.statusCode, text, response.headers);
  if (error.keyRefusal || error.httpStatus !== 400) throw error;
  return { refused: true, status: response.statusCode, contentType, bytes: Buffer.from(redactSecrets(text)), error };
}
