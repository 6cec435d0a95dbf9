import { googleRpcStatus } from "@gateway/platform";
import { type Exchange, sendJson } from "../http.js";

/** Sends Google's error shape: `{"error":{"code","message","status","details"?}}`. */
export function sendGeminiError(exchange: Exchange, code: number, message: string, details?: unknown[]): void {
  const status = googleRpcStatus(code);
  sendJson(exchange, code, { error: { code, message, status, ...(details && { details }) } });
}

// What Gemini says for the statuses clients handle specially; others get a generic message.
const statusMessages: Record<number, string> = {
  400: "Simulated bad request.",
  403: "Simulated permission denied.",
  404: "Simulated: the model is not found for API version v1beta.",
  429: "You exceeded your current quota, please check your plan and billing details.",
  500: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  503: "The model is overloaded. Please try again later.",
  504: "The request timed out. Please try again.",
};

export function sendStatusFault(exchange: Exchange, code: number, retryAfterMs: number): void {
  const message = statusMessages[code] ?? `Simulated HTTP ${code} error.`;
  sendGeminiError(exchange, code, message, code === 429 ? quotaDetails(retryAfterMs) : undefined);
}

/** Google's 429 details: the quota that ran out, where to read about it, and the wait as a Duration ("26.5s"). */
const quotaDetails = (retryAfterMs: number) => [
  {
    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
    violations: [
      {
        quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
        quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
      },
    ],
  },
  {
    "@type": "type.googleapis.com/google.rpc.Help",
    links: [
      { description: "Learn more about Gemini API quotas", url: "https://ai.google.dev/gemini-api/docs/rate-limits" },
    ],
  },
  { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfterMs / 1000}s` },
];

/** The caller's key: the x-goog-api-key header, or the `key` query parameter. */
export function apiKeyOf(exchange: Exchange): string | undefined {
  const header = exchange.request.headers["x-goog-api-key"];
  if (typeof header === "string" && header.trim() !== "") return header.trim();
  const key = new URL(exchange.request.url ?? "/", "http://simulator").searchParams.get("key");
  return key ? key : undefined;
}

/** Any non-empty key passes; a missing one gets an UNAUTHENTICATED error. */
export function requireApiKey(exchange: Exchange): string | undefined {
  const key = apiKeyOf(exchange);
  if (key) return key;
  sendGeminiError(
    exchange,
    401,
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  );
  return undefined;
}
