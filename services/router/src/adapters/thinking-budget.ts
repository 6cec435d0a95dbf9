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

/**
 * The reasoning effort for vendors that take an effort rather than a budget: the request's own,
 * or, for a budget given in Anthropic's or Gemini's way, the least effort whose budget covers it
 * ("minimal" only when asked for by name: several reasoning models refuse it).
 */
export function reasoningEffortOf(request: ChatRequest): string | undefined {
  if (request.reasoningEffort !== undefined || request.thinking?.type !== "enabled") return request.reasoningEffort;
  const budget = request.thinking.budgetTokens;
  if (budget === undefined) return "medium";
  if (budget <= thinkingBudgets.low!) return "low";
  return budget <= thinkingBudgets.medium! ? "medium" : "high";
}

/**
 * Anthropic's `output_config.effort` for a model that thinks only adaptively: the request's
 * reasoning effort, or the one its budget stands for ("minimal" is Anthropic's "low"; "none"
 * asks for no thinking).
 */
export function adaptiveEffortOf(request: ChatRequest): string | undefined {
  const effort = reasoningEffortOf(request);
  return effort === "minimal" ? "low" : effort;
}

/** Reasoning efforts from least to most, as OpenAI, Anthropic and Gemini name them. */
const effortOrder = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];

/**
 * The effort a model takes that is nearest to the one asked for: the least of its efforts at or
 * above it, else its greatest (GPT-6.2 has no "none", Gemini 3.1 Pro no "minimal", no model every
 * level). Without a list of efforts, the one asked for.
 */
export function effortWithin(effort: string, efforts: readonly string[] | undefined): string {
  if (!efforts || efforts.includes(effort)) return effort;
  const rank = effortOrder.indexOf(effort);
  const sorted = [...efforts].sort((a, b) => effortOrder.indexOf(a) - effortOrder.indexOf(b));
  return sorted.find((candidate) => effortOrder.indexOf(candidate) >= rank) ?? sorted.at(-1)!;
}
