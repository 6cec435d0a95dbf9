import { invalidRequest } from "@gateway/platform";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";

/**
 * For adapters whose vendor API gives no log probabilities back in OpenAI's terms (Claude;
 * Gemini, whose logprobsResult is not mapped): a chat client's `logprobs: true` (carried in
 * extraJson) is refused before the vendor is called, rather than answered with `null`, so a
 * client that relies on them learns at once. `logprobs: false` asks for nothing and passes.
 */
export function refuseLogprobs(request: ChatRequest): void {
  if (!request.extraJson.includes('"logprobs"')) return;
  const extra = JSON.parse(request.extraJson) as { logprobs?: unknown };
  if (extra.logprobs === true) {
    throw invalidRequest(
      `The model \`${request.model}\` does not return log probabilities; leave out logprobs and top_logprobs.`,
      "logprobs",
      "unsupported_parameter",
    );
  }
}
