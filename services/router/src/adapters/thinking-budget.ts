import type { ChatRequest } from "@gateway/proto/router/v1/chat";

/** Anthropic refuses an extended-thinking budget below this many tokens. */
export const anthropicMinimumThinkingBudget = 1024;

/**
 * The thinking budget, in tokens, each OpenAI reasoning_effort stands for on vendors that take
 * a budget (Claude extended thinking, Gemini thinking). Anthropic's minimum budget is 1024.
 * A gateway choice, documented in docs/reasoning-and-caching.md.
 */
export const thinkingBudgets: Readonly<Record<string, number>> = {
  minimal: anthropicMinimumThinkingBudget,
  low: 2048,
  medium: 8192,
  high: 16_384,
};

/** The thinking budget a request asks for: an explicit one, or its reasoning_effort's. */
export function thinkingBudgetOf(request: ChatRequest): number | undefined {
  if (request.thinking) return request.thinking.type === "enabled" ? request.thinking.budgetTokens : undefined;
  return request.reasoningEffort === undefined ? undefined : thinkingBudgets[request.reasoningEffort];
}
