import type { Caller } from "@gateway/proto/common/v1/common";
import type { CompletionRequest } from "@gateway/proto/router/v1/completions";
import type { CompletionRequestBody } from "./completion-request-schema.js";

// OpenAI's default for the legacy endpoint, unlike chat, where the model's own limit applies.
export const defaultCompletionMaxTokens = 16;

const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** The validated completions body in the router's typed form. */
export function toCanonicalCompletion(body: CompletionRequestBody, caller: Caller): CompletionRequest {
  const stop =
    body.stop === undefined || body.stop === null ? [] : typeof body.stop === "string" ? [body.stop] : body.stop;
  return {
    caller,
    model: body.model,
    prompts: typeof body.prompt === "string" ? [body.prompt] : body.prompt,
    maxTokens: body.max_tokens ?? defaultCompletionMaxTokens,
    temperature: orUndefined(body.temperature),
    topP: orUndefined(body.top_p),
    n: orUndefined(body.n),
    stop,
    echo: body.echo ?? false,
    suffix: orUndefined(body.suffix),
    stream: body.stream ?? false,
    includeUsage: body.stream_options?.include_usage ?? false,
    seed: orUndefined(body.seed),
    user: body.user,
    presencePenalty: orUndefined(body.presence_penalty),
    frequencyPenalty: orUndefined(body.frequency_penalty),
    extraJson: body.logit_bias ? JSON.stringify({ logit_bias: body.logit_bias }) : "",
  };
}
