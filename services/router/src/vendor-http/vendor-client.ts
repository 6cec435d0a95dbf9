import { mapVendorError } from "@gateway/outbound-http";
import { GatewayError, serviceUnavailable } from "@gateway/platform";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { Agent, type Dispatcher, FormData, errors as undiciErrors } from "undici";

export interface VendorTimeouts {
  connectMs: number;
  firstByteMs: number;
  idleMs: number;
}

export const defaultTimeouts: VendorTimeouts = { connectMs: 5_000, firstByteMs: 120_000, idleMs: 60_000 };

/**
 * Keep-alive connection pools shared by all vendor calls, so hot requests skip TCP and TLS
 * set-up. undici fixes the connect timeout per pool, hence one pool per timeout in use.
 * An idle connection is dropped after at most 30 s, whatever the vendor's `Keep-Alive` hint,
 * well before vendors close theirs (the simulator after 65 s, load balancers after 60 s): a
 * request sent on a connection the vendor is closing fails as a reset socket.
 * An HTTP/1.1 stream holds its connection for the whole answer (seconds at a model's pace), so
 * the cap is how many calls one router has open to one vendor origin: at 512 the 513th stream
 * waited in undici's queue for a whole answer to end (the LLM-paced bench row). Admission (the
 * groups' concurrent_requests) is what bounds concurrency; this only bounds sockets, far above it.
 */
const vendorConnectionsPerOrigin = 16_384;
const agents = new Map<number, Agent>();
function agentFor(connectMs: number): Agent {
  let agent = agents.get(connectMs);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 30_000,
      connections: vendorConnectionsPerOrigin,
      connect: { timeout: connectMs },
    });
    agents.set(connectMs, agent);
  }
  return agent;
}

export interface VendorRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  timeouts?: VendorTimeouts;
}

/**
 * Posts a JSON body's bytes exactly as given and answers whatever the vendor's status, for a
 * relay that reads the vendor's errors itself; only the transport's failures are thrown.
 */
export async function postJsonBytes(request: VendorRequest & { body: Uint8Array }): Promise<Dispatcher.ResponseData> {
  return dispatch(request, { "content-type": "application/json", ...request.headers }, request.body);
}

async function dispatch(
  { url, signal, timeouts = defaultTimeouts }: Omit<VendorRequest, "body">,
  headers: Record<string, string>,
  body: string | Uint8Array | FormData | undefined,
): Promise<Dispatcher.ResponseData> {
  const target = new URL(url);
  try {
    return await agentFor(timeouts.connectMs).request({
      origin: target.origin,
      path: target.pathname + target.search,
      method: body === undefined ? "GET" : "POST",
      headers,
      body,
      signal,
      headersTimeout: timeouts.firstByteMs,
      bodyTimeout: timeouts.idleMs,
    });
  } catch (error) {
    throw transportError(error, signal);
  }
}

async function send(request: VendorRequest) {
  const { headers, body } = request;
  // Uploads (images, audio) go as FormData, for which undici writes the multipart boundary itself.
  const response =
    body instanceof FormData
      ? await dispatch(request, headers, body)
      : await dispatch(request, { "content-type": "application/json", ...headers }, JSON.stringify(body));
  if (response.statusCode >= 400) {
    const text = await response.body.text().catch(() => "");
    throw mapVendorError(response.statusCode, text, response.headers);
  }
  return response;
}

export async function postJson<T>(request: VendorRequest): Promise<T> {
  return readJson<T>(await send(request), request.signal);
}

async function readJson<T>(response: Dispatcher.ResponseData, signal: AbortSignal): Promise<T> {
  try {
    return (await response.body.json()) as T;
  } catch (error) {
    throw transportError(error, signal);
  }
}

/** GETs a vendor resource (an asynchronous task's state); a failure status is mapped as for posts. */
export async function getJson<T>(request: Omit<VendorRequest, "body">): Promise<T> {
  const response = await dispatch(request, request.headers, undefined);
  if (response.statusCode >= 400) {
    const text = await response.body.text().catch(() => "");
    throw mapVendorError(response.statusCode, text, response.headers);
  }
  return readJson<T>(response, request.signal);
}

/** GETs a file the vendor made (a generated image at the URL it answered), refusing one over maxBytes. */
export async function getBytes(request: Omit<VendorRequest, "body">, maxBytes: number): Promise<Buffer> {
  const response = await dispatch(request, request.headers, undefined);
  if (response.statusCode >= 400) {
    response.body.destroy();
    throw serviceUnavailable("The model provider's result could not be downloaded. Please retry.");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        response.body.destroy();
        throw serviceUnavailable("The model provider's result is larger than the gateway takes.");
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw transportError(error, request.signal);
  }
  return Buffer.concat(chunks);
}

/** Posts a request whose answer may be JSON or plain text (transcripts), and returns it unparsed. */
export async function postForText(request: VendorRequest): Promise<{ text: string; contentType: string }> {
  const response = await send(request);
  try {
    const contentType = String(response.headers["content-type"] ?? "application/json");
    return { text: await response.body.text(), contentType };
  } catch (error) {
    throw transportError(error, request.signal);
  }
}

/** Posts a request and yields the parsed SSE `data` payloads as they arrive. */
export async function* postEventStream(request: VendorRequest): AsyncGenerator<EventSourceMessage> {
  const response = await send(request);
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  try {
    for await (const bytes of response.body) {
      parser.feed(decoder.decode(bytes as Buffer, { stream: true }));
      while (pending.length > 0) yield pending.shift()!;
    }
  } catch (error) {
    throw transportError(error, request.signal);
  } finally {
    // Ends the vendor request when the consumer stops early (client gone).
    if (!response.body.destroyed) response.body.destroy();
  }
}

/** Aborts surface as-is so the caller can tell a departed client from a vendor fault. */
export function transportError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted || error instanceof GatewayError) return error;
  if (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  ) {
    return serviceUnavailable("The model provider timed out. Please retry.");
  }
  return serviceUnavailable("The model provider could not be reached. Please retry.");
}
