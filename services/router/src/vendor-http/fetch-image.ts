import { lookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { isPublicAddress } from "@gateway/outbound-http/public-address";
import { GatewayError, invalidRequest } from "@gateway/shared";
import { Agent, type Dispatcher } from "undici";
import type { ImageFetchPolicy } from "../adapters/adapter-registry.js";

/** An image ready to inline: its media type and its bytes in base64. */
export interface InlineImage {
  mimeType: string;
  data: string;
}

// What Gemini accepts inline. https://ai.google.dev/gemini-api/docs/image-understanding
const acceptedTypes = new Set(["image/png", "image/jpeg", "image/webp", "image/gif", "image/heic", "image/heif"]);
const redirectLimit = 3;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

const refuse = (reason: string) =>
  invalidRequest(`Could not use the image URL: ${reason}`, "messages", "invalid_image_url");

interface Resolved {
  address: string;
  family: number;
}

async function resolveHost(hostname: string): Promise<Resolved[]> {
  const literal = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  const family = isIP(literal);
  if (family !== 0) return [{ address: literal, family }];
  try {
    const addresses = await lookup(literal, { all: true, verbatim: true });
    if (addresses.length > 0) return addresses;
  } catch {
    // Reported below.
  }
  throw refuse(`the host ${hostname} could not be resolved.`);
}

function allowListed(url: URL, policy: ImageFetchPolicy): boolean {
  const allowed = policy.allowedPrivateHosts.map((host) => host.toLowerCase());
  return allowed.includes(url.host.toLowerCase()) || allowed.includes(url.hostname.toLowerCase());
}

/** A lookup that answers only with addresses already checked, so the connection cannot be re-pointed. */
function pinnedLookup(addresses: Resolved[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}

function checkUrl(url: URL): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw refuse("only http and https URLs (or data: URLs) are supported.");
  }
  if (url.username || url.password) throw refuse("URLs with credentials are not supported.");
}

/** One GET, connected to the addresses that passed the check; the caller reads or discards the body. */
async function requestOnce(url: URL, policy: ImageFetchPolicy, signal: AbortSignal) {
  checkUrl(url);
  const addresses = await resolveHost(url.hostname);
  if (!allowListed(url, policy) && !addresses.every((resolved) => isPublicAddress(resolved.address))) {
    throw refuse(
      `the host ${url.hostname} is on a private or reserved network, which the gateway does not fetch from.`,
    );
  }
  const agent = new Agent({ connect: { lookup: pinnedLookup(addresses), timeout: policy.timeoutMs } });
  try {
    // undici follows no redirects unless told to.
    const response = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: { accept: [...acceptedTypes].join(", ") },
      signal,
    });
    return { response, close: () => agent.destroy().catch(() => undefined) };
  } catch (error) {
    void agent.destroy().catch(() => undefined);
    throw error;
  }
}

/** Drops a body that will not be read; destroying it unread emits an error nobody else listens for. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => undefined);
  if (!body.destroyed) body.destroy();
}

function mediaType(response: Dispatcher.ResponseData): string {
  const header = response.headers["content-type"];
  return (typeof header === "string" ? header : "").split(";")[0]!.trim().toLowerCase();
}

async function readLimited(response: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) throw refuse(`the image is larger than ${maxBytes} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      discard(response.body);
      throw refuse(`the image is larger than ${maxBytes} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function download(start: URL, policy: ImageFetchPolicy, signal: AbortSignal): Promise<InlineImage> {
  let url = start;
  for (let hop = 0; ; hop += 1) {
    const { response, close } = await requestOnce(url, policy, signal);
    try {
      const location = response.headers.location;
      if (redirectStatuses.has(response.statusCode) && typeof location === "string") {
        if (hop === redirectLimit) throw refuse(`more than ${redirectLimit} redirects.`);
        // Each hop is checked again from scratch: scheme, resolution and address ranges.
        url = new URL(location, url);
        continue;
      }
      if (response.statusCode !== 200) throw refuse(`the server answered HTTP ${response.statusCode}.`);
      const mimeType = mediaType(response);
      if (!acceptedTypes.has(mimeType)) {
        throw refuse(`unsupported content type "${mimeType || "none"}"; expected PNG, JPEG, WebP, GIF or HEIC.`);
      }
      const bytes = await readLimited(response, policy.maxBytes);
      return { mimeType, data: bytes.toString("base64") };
    } finally {
      discard(response.body);
      await close();
    }
  }
}

/**
 * Downloads an image the client named by URL, for vendors that only take inline data. Guards
 * against server-side request forgery: http(s) only; every resolved address must be public
 * unless the host (or host:port) is allow-listed; the connection goes to exactly the addresses
 * checked (no DNS rebinding); redirects are re-checked hop by hop; size, time and content type
 * are bounded. Failures are the client's 400; a departed client's abort surfaces as-is.
 */
export async function fetchImage(url: string, policy: ImageFetchPolicy, signal: AbortSignal): Promise<InlineImage> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse("the URL is malformed.");
  }
  const deadline = AbortSignal.timeout(policy.timeoutMs);
  try {
    return await download(parsed, policy, AbortSignal.any([signal, deadline]));
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    if (error instanceof GatewayError) throw error;
    if (deadline.aborted) throw refuse(`downloading the image took longer than ${policy.timeoutMs} ms.`);
    throw refuse("the image could not be downloaded.");
  }
}

/** Reads a `data:image/...;base64,` URL, with the same type and size rules as a download. */
export function imageFromDataUrl(url: string, policy: Pick<ImageFetchPolicy, "maxBytes">): InlineImage {
  const match = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (!match) throw refuse("the data URL is malformed.");
  const mimeType = match[1]!.trim().toLowerCase();
  if (!acceptedTypes.has(mimeType)) {
    throw refuse(`unsupported content type "${mimeType}"; expected PNG, JPEG, WebP, GIF or HEIC.`);
  }
  if (!match[2]!.toLowerCase().split(";").includes("base64")) throw refuse("only base64 data URLs are supported.");
  const data = match[3]!.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw refuse("the data URL is not valid base64.");
  if (Buffer.byteLength(data, "base64") > policy.maxBytes)
    throw refuse(`the image is larger than ${policy.maxBytes} bytes.`);
  return { mimeType, data };
}
