import type { Target } from "./load.js";

/** One vendor family: its own protocol called directly on the simulator, and the same question through the gateway. */
export interface FamilyTargets {
  family: string;
  direct: Target;
  gateway: Target;
}

const question = "Say hello";

/**
 * The pass-through family beside the two the gateway translates, so the cost of
 * translation (Anthropic Messages, Gemini) shows next to the cost of forwarding.
 */
export function familyTargets(simulatorUrl: string, gatewayUrl: string, apiKey: string): FamilyTargets[] {
  const gateway = (model: string): Target => ({
    name: `gateway ${model}`,
    url: `${gatewayUrl}/chat/completions`,
    headers: { authorization: `Bearer ${apiKey}` },
    body: { model, messages: [{ role: "user", content: question }] },
  });
  const geminiBody = { contents: [{ role: "user", parts: [{ text: question }] }] };
  const gemini = `${simulatorUrl}/v1beta/models/gemini-2.5-flash`;
  return [
    {
      family: "OpenAI-compatible (pass-through), gpt-4o-mini",
      direct: {
        name: "direct openai",
        url: `${simulatorUrl}/v1/chat/completions`,
        headers: { authorization: "Bearer sk-bench" },
      },
      gateway: gateway("gpt-4o-mini"),
    },
    {
      family: "Anthropic Messages (translated), claude-sonnet-4-6",
      direct: {
        name: "direct anthropic",
        url: `${simulatorUrl}/v1/messages`,
        headers: { "x-api-key": "sk-bench", "anthropic-version": "2023-06-01" },
        body: { model: "claude-sonnet-4-6", max_tokens: 256, messages: [{ role: "user", content: question }] },
      },
      gateway: gateway("claude-sonnet-4-6"),
    },
    {
      family: "Gemini (translated), gemini-2.5-flash",
      direct: {
        name: "direct gemini",
        url: `${gemini}:generateContent`,
        headers: { "x-goog-api-key": "sk-bench" },
        body: geminiBody,
        stream: { url: `${gemini}:streamGenerateContent?alt=sse`, body: geminiBody },
      },
      gateway: gateway("gemini-2.5-flash"),
    },
  ];
}
