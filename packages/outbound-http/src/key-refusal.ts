/**
 * Why a vendor will not serve a key again until an operator acts: the key itself is refused, or
 * the account behind it has no balance or quota left. Neither heals by retrying.
 */
export type KeyRefusal = "key_invalid" | "quota_exhausted";

// Out-of-balance answers as each vendor words them (PROTOCOLS.md and the vendors' own errors):
// OpenAI 429 `insufficient_quota`; Anthropic 400 "Your credit balance is too low" or `billing_error`;
// DeepSeek 402 "Insufficient Balance"; Qwen (DashScope) 400 `Arrearage`; Kimi 403/429
// `exceeded_current_quota_error` ("suspended due to insufficient balance"); xAI 403/429 "used all
// available credits or reached its monthly spending limit".
const quotaExhausted =
  /insufficient_quota|billing_error|credit balance is too low|insufficient balance|Arrearage|exceeded_current_quota_error|used all available credits/i;
// Gemini and xAI refuse a bad key with 400, not 401.
const keyRejected = /API_KEY_INVALID|Incorrect API key|invalid api key/i;

/** The refusal a vendor's error answer means for the key that made the call, if it means one. */
export function keyRefusalOf(status: number, text: string): KeyRefusal | undefined {
  // Gemini's 429 RESOURCE_EXHAUSTED is a per-minute quota as often as a spent one: left to the retry path.
  if ((status === 402 || status === 400 || status === 403 || status === 429) && quotaExhausted.test(text)) {
    return "quota_exhausted";
  }
  if (status === 401 || status === 403) return "key_invalid";
  if (status === 400 && keyRejected.test(text)) return "key_invalid";
  return undefined;
}
