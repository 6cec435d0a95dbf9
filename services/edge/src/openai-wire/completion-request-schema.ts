import { int32From, invalidRequest, modelId } from "@gateway/platform";
import { z } from "zod";

// OpenAI's legacy completions request. https://platform.openai.com/docs/api-reference/completions/create
// Served through chat models, so what only a raw completion model can give (log probabilities,
// best_of ranking, token-id prompts) is refused with a 400 rather than silently ignored.

// Each prompt is one vendor call; the bound keeps one request from fanning out without limit.
export const maxPrompts = 32;
const maxChoices = 128;

const promptSchema = z.union([z.string(), z.array(z.string()).min(1).max(maxPrompts)], {
  error: `must be a string or an array of 1 to ${maxPrompts} strings`,
});

export const completionRequestSchema = z
  .object({
    model: modelId,
    prompt: promptSchema,
    suffix: z.string().nullish(),
    max_tokens: int32From(1).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    n: z.number().int().min(1).max(maxChoices).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
    logprobs: z.number().int().min(0).max(5).nullish(),
    echo: z.boolean().nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
    presence_penalty: z.number().min(-2).max(2).nullish(),
    frequency_penalty: z.number().min(-2).max(2).nullish(),
    best_of: z.number().int().min(0).max(20).nullish(),
    logit_bias: z.record(z.string(), z.number().min(-100).max(100)).nullish(),
    seed: z.number().int().nullish(),
    user: z.string().optional(),
  })
  .strict()
  .superRefine((body, context) => {
    if (body.stream_options && !body.stream) {
      context.addIssue({ code: "custom", path: ["stream_options"], message: "is only allowed when stream is true" });
    }
    if (body.logprobs) {
      context.addIssue({
        code: "custom",
        path: ["logprobs"],
        message: "is not supported: answers carry no log probabilities",
      });
    }
    if (body.best_of && body.best_of > (body.n ?? 1)) {
      context.addIssue({ code: "custom", path: ["best_of"], message: "greater than n is not supported" });
    }
    const prompts = Array.isArray(body.prompt) ? body.prompt.length : 1;
    if (prompts * (body.n ?? 1) > maxChoices) {
      context.addIssue({
        code: "custom",
        path: ["n"],
        message: `times the number of prompts must not exceed ${maxChoices}`,
      });
    }
  });

export type CompletionRequestBody = z.infer<typeof completionRequestSchema>;

const isTokenIds = (value: unknown) => Array.isArray(value) && value.length > 0 && value.every(Number.isInteger);

/** Token-id prompts need the vendor's tokenizer, which a chat API does not expose; refused by name. */
export function refuseTokenPrompts(body: unknown): void {
  const prompt = (body as { prompt?: unknown } | null)?.prompt;
  if (isTokenIds(prompt) || (Array.isArray(prompt) && prompt.length > 0 && prompt.every(isTokenIds))) {
    throw invalidRequest(
      "Token-id prompts are not supported by this gateway; send the prompt as text.",
      "prompt",
      "unsupported_value",
    );
  }
}
