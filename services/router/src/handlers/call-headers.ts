import type { RequestFacts } from "@gateway/billing";
import { vendorCalledHeader } from "@gateway/platform";
import { Metadata } from "@grpc/grpc-js";

/**
 * Sends the admitted request's response headers right before the vendor is called, and
 * resolves once they are written: its x-ratelimit-* headers, which edge puts on the HTTP
 * response (OpenAI sends them on every response), x-gateway-served-model when a retired id's
 * successor answers, and x-gateway-vendor-called. Edge's gRPC client sends a call that failed
 * to another router only until headers arrived (grpc-failover.ts), so a router that dies
 * after this point never has its vendor call made a second time elsewhere.
 */
export function sendHeadersBeforeVendor(
  call: { sendHeadersNow(metadata: Metadata): Promise<void> },
  facts: RequestFacts,
): Promise<void> {
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(facts.rateLimitHeaders ?? {})) metadata.set(name, value);
  if (facts.model.servedFor) metadata.set("x-gateway-served-model", facts.model.id);
  metadata.set(vendorCalledHeader, "1");
  return call.sendHeadersNow(metadata);
}
