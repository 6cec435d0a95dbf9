import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { isPublicAddress } from "./public-address.js";

/** A URL the gateway will not call for a client; the message is a sentence fit to show that client. */
export class RefusedUrlError extends Error {
  override readonly name = "RefusedUrlError";
}

export interface PublicRequest {
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** host or host:port values that may resolve to private addresses (a test server, an internal hook). */
  allowedPrivateHosts: string[];
  connectTimeoutMs: number;
  /** Ends the request wherever it is: connecting, waiting for headers or reading the body. */
  signal: AbortSignal;
}

export interface PublicResponse {
  response: Dispatcher.ResponseData;
  /** Drops the body if unread and closes the connection; call it once done. */
  close(): Promise<void>;
}

interface Resolved {
  address: string;
  family: number;
}

async function resolveOnce(hostname: string): Promise<Resolved[]> {
  const literal = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  const family = isIP(literal);
  if (family !== 0) return [{ address: literal, family }];
  try {
    const addresses = await lookup(literal, { all: true, verbatim: true });
    if (addresses.length > 0) return addresses;
  } catch {
    // Reported below.
  }
  throw new RefusedUrlError(`the host ${hostname} could not be resolved.`);
}

function allowListed(url: URL, allowedPrivateHosts: string[]): boolean {
  const allowed = allowedPrivateHosts.map((host) => host.toLowerCase());
  return allowed.includes(url.host.toLowerCase()) || allowed.includes(url.hostname.toLowerCase());
}

/** A lookup that answers only with addresses already checked, so DNS cannot re-point the connection. */
function pinnedLookup(addresses: Resolved[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

/** Drops a body that will not be read; destroying it unread emits an error nobody else listens for. */
export function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => undefined);
  if (!body.destroyed) body.destroy();
}

/**
 * One HTTP request to a URL a client supplied, safe from server-side request forgery: http(s)
 * only, no credentials in the URL, the host resolved once and every address it resolves to
 * public (see isPublicAddress) unless the host is allow-listed, and the connection made to
 * exactly those addresses, so a second DNS answer cannot re-point it. Redirects are not
 * followed: a caller that follows one calls this again for the next hop, which checks it anew.
 * Throws RefusedUrlError for a URL it will not call; network failures and aborts as they come.
 */
export async function requestPublicUrl(url: URL, request: PublicRequest): Promise<PublicResponse> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RefusedUrlError("only http and https URLs are supported.");
  }
  if (url.username || url.password) throw new RefusedUrlError("URLs with credentials are not supported.");
  const addresses = await resolveOnce(url.hostname);
  if (!allowListed(url, request.allowedPrivateHosts) && !addresses.every(({ address }) => isPublicAddress(address))) {
    throw new RefusedUrlError(
      `the host ${url.hostname} is on a private or reserved network, which the gateway does not call.`,
    );
  }
  const agent = new Agent({ connect: { lookup: pinnedLookup(addresses), timeout: request.connectTimeoutMs } });
  const close = () => agent.destroy().catch(() => undefined);
  try {
    const response = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
    return {
      response,
      close: async () => {
        discard(response.body);
        await close();
      },
    };
  } catch (error) {
    void close();
    throw error;
  }
}
