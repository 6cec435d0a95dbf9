import type { Metadata } from "@grpc/grpc-js";
import type { Response } from "express";

/**
 * Puts the x-ratelimit-* headers the router sends as response metadata (before any answer)
 * on the HTTP response: OpenAI's clients read them on every answer, not only on a 429. So does
 * x-gateway-served-model, naming the successor that answered for a retired model.
 */
export function copyRateLimitHeaders(
  call: { on(event: "metadata", listener: (metadata: Metadata) => void): unknown },
  response: Response,
): void {
  call.on("metadata", (metadata) => {
    if (response.headersSent) return;
    for (const [name, value] of Object.entries(metadata.getMap())) {
      if (name.startsWith("x-ratelimit-") || name === "x-gateway-served-model") response.setHeader(name, String(value));
    }
  });
}
