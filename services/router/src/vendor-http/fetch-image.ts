import { discard, RefusedUrlError, requestPublicUrl } from "@gateway/outbound-http";
import { GatewayError, invalidRequest } from "@gateway/platform";
import type { Dispatcher } from "undici";
import type { ImageFetchPolicy } from "../adapters/adapter-registry.js";
import type { FetchBudget } from "./fetch-budget.js";

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

/** One GET through the SSRF-safe request; a URL it refuses is the client's 400. */
async function requestOnce(url: URL, policy: ImageFetchPolicy, signal: AbortSignal) {
  try {
    return await requestPublicUrl(url, {
      method: "GET",
      headers: { accept: [...acceptedTypes].join(", ") },
      allowedPrivateHosts: policy.allowedPrivateHosts,
      connectTimeoutMs: policy.timeoutMs,
      signal,
    });
  } catch (error) {
    throw error instanceof RefusedUrlError ? refuse(error.message) : error;
  }
}

function mediaType(response: Dispatcher.ResponseData): string {
  const header = response.headers["content-type"];
  return (typeof header === "string" ? header : "").split(";")[0]!.trim().toLowerCase();
}

/** Reads a body up to the per-image cap, counting every chunk against the request's budget too. */
async function readLimited(response: Dispatcher.ResponseData, maxBytes: number, budget: FetchBudget): Promise<Buffer> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) throw refuse(`the image is larger than ${maxBytes} bytes.`);
  if (Number.isFinite(declared) && declared > budget.remaining) throw budget.exceeded();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      discard(response.body);
      throw refuse(`the image is larger than ${maxBytes} bytes.`);
    }
    try {
      budget.add((chunk as Buffer).length);
    } catch (error) {
      discard(response.body);
      throw error;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function download(
  start: URL,
  policy: ImageFetchPolicy,
  budget: FetchBudget,
  signal: AbortSignal,
): Promise<InlineImage> {
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
      const bytes = await readLimited(response, policy.maxBytes, budget);
      return { mimeType, data: bytes.toString("base64") };
    } finally {
      await close();
    }
  }
}

/**
 * Downloads an image the client named by URL, for vendors that only take inline data. Guards
 * against server-side request forgery: http(s) only; every resolved address must be public
 * unless the host (or host:port) is allow-listed; the connection goes to exactly the addresses
 * checked (no DNS rebinding); redirects are re-checked hop by hop; size, time and content type
 * are bounded, the bytes also by what the request's other downloads left of its `budget`.
 * Failures are the client's 400; a departed client's abort surfaces as-is.
 */
export async function fetchImage(
  url: string,
  policy: ImageFetchPolicy,
  budget: FetchBudget,
  signal: AbortSignal,
): Promise<InlineImage> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse("the URL is malformed.");
  }
  const deadline = AbortSignal.timeout(policy.timeoutMs);
  try {
    return await download(parsed, policy, budget, AbortSignal.any([signal, deadline]));
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
