import { lookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isPublicAddress } from "@gateway/outbound-http/public-address";

export interface CallbackPolicy {
  /** host or host:port values that may be private (a test receiver, an internal hook). */
  allowedPrivateHosts: string[];
  timeoutMs: number;
}

interface Resolved {
  address: string;
  family: number;
}

async function resolve(hostname: string): Promise<Resolved[]> {
  const literal = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  const family = isIP(literal);
  if (family !== 0) return [{ address: literal, family }];
  return lookup(literal, { all: true, verbatim: true });
}

/** Answers only with the addresses already checked, so DNS cannot re-point the connection. */
const pinned =
  (addresses: Resolved[]): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };

/**
 * POSTs one callback and resolves with the HTTP status. The URL is the client's, so it is
 * treated like any fetched URL (no SSRF): http(s) only, every resolved address public unless
 * allow-listed, the connection pinned to those addresses, no redirects followed, bounded time.
 */
export async function postCallback(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: CallbackPolicy,
): Promise<number> {
  const target = new URL(url);
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new Error("callback_url must be http(s)");
  const addresses = await resolve(target.hostname);
  const allowed = policy.allowedPrivateHosts.map((host) => host.toLowerCase());
  const listed = allowed.includes(target.host.toLowerCase()) || allowed.includes(target.hostname.toLowerCase());
  if (addresses.length === 0 || (!listed && !addresses.every((resolved) => isPublicAddress(resolved.address)))) {
    throw new Error(`callback host ${target.hostname} is not on a public network`);
  }
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolvePromise, reject) => {
    const outgoing = send(
      target,
      {
        method: "POST",
        lookup: pinned(addresses),
        timeout: policy.timeoutMs,
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.once("end", () => resolvePromise(response.statusCode ?? 0));
        response.once("error", reject);
      },
    );
    outgoing.once("timeout", () => outgoing.destroy(new Error("callback timed out")));
    outgoing.once("error", reject);
    outgoing.end(body);
  });
}
