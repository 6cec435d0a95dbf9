import type { Usage } from "@gateway/proto/router/v1/chat";
import { z } from "zod";

// https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage:
// output_tokens includes the reasoning tokens, input_tokens the cached ones (as chat's counts do).
const count = z.number().int().nonnegative();
const responseUsageSchema = z.object({
  usage: z.object({
    input_tokens: count,
    input_tokens_details: z.object({ cached_tokens: count.optional() }).nullish(),
    output_tokens: count,
    output_tokens_details: z.object({ reasoning_tokens: count.optional() }).nullish(),
    total_tokens: count.optional(),
  }),
  service_tier: z.string().nullish(),
});

/** The usage of a Responses API response object, as the chat path bills it; undefined when it reports none. */
export function usageOfResponse(response: unknown): Usage | undefined {
  const parsed = responseUsageSchema.safeParse(response);
  if (!parsed.success) return undefined;
  const { usage, service_tier: serviceTier } = parsed.data;
  return {
    promptTokens: usage.input_tokens,
    completionTokens: usage.output_tokens,
    totalTokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
    cachedTokens: usage.input_tokens_details?.cached_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens,
    serviceTier: serviceTier ?? undefined,
  };
}
