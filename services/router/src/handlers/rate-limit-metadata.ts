import type { RequestFacts } from "@gateway/billing";
import { Metadata } from "@grpc/grpc-js";

/**
 * Sends the admitted request's x-ratelimit-* headers as the call's initial metadata, with the
 * answer (a stream's with its first chunk), so edge can put them on the HTTP response (OpenAI
 * sends them on every response), and x-gateway-served-model when a retired id's successor answered.
 */
export function sendRateLimitHeaders(call: { sendMetadata(metadata: Metadata): void }, facts: RequestFacts): void {
  const headers = Object.entries(facts.rateLimitHeaders ?? {});
  if (facts.model.servedFor) headers.push(["x-gateway-served-model", facts.model.id]);
  if (headers.length === 0) return;
  const metadata = new Metadata();
  for (const [name, value] of headers) metadata.set(name, value);
  call.sendMetadata(metadata);
}
