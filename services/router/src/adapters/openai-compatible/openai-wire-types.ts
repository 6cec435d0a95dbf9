import { z } from "zod";

// The parts of OpenAI's chat response and chunk we read, checked at the boundary.
// https://platform.openai.com/docs/api-reference/chat/object

const usage = z
  .object({
    prompt_tokens: z.number().int().default(0),
    completion_tokens: z.number().int().default(0),
    total_tokens: z.number().int().optional(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().int().nullish() }).loose().nullish(),
    completion_tokens_details: z.object({ reasoning_tokens: z.number().int().nullish() }).loose().nullish(),
    // DeepSeek reports cache hits under its own name.
    prompt_cache_hit_tokens: z.number().int().nullish(),
    // Kimi puts cached tokens at the top of its usage.
    cached_tokens: z.number().int().nullish(),
  })
  .loose();

// OpenAI's {content: [{token, logprob, bytes, top_logprobs}], refusal}, passed on as the vendor sent it.
const logprobs = z.object({}).loose().nullish();

const toolCall = z.object({
  id: z.string(),
  function: z.object({ name: z.string(), arguments: z.string().default("") }),
});

export const openAICompletionSchema = z.object({
  id: z.string().default(""),
  created: z.number().int().default(0),
  model: z.string().default(""),
  system_fingerprint: z.string().nullish(),
  service_tier: z.string().nullish(),
  choices: z.array(
    z.object({
      index: z.number().int().default(0),
      finish_reason: z.string().nullish(),
      logprobs,
      message: z.object({
        content: z.string().nullish(),
        refusal: z.string().nullish(),
        reasoning_content: z.string().nullish(),
        tool_calls: z.array(toolCall).nullish(),
      }),
    }),
  ),
  usage: usage.nullish(),
});

const toolCallDelta = z.object({
  index: z.number().int().default(0),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const openAIChunkSchema = z.object({
  id: z.string().default(""),
  created: z.number().int().default(0),
  model: z.string().default(""),
  service_tier: z.string().nullish(),
  choices: z
    .array(
      z.object({
        index: z.number().int().default(0),
        finish_reason: z.string().nullish(),
        logprobs,
        delta: z
          .object({
            role: z.string().nullish(),
            content: z.string().nullish(),
            refusal: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            tool_calls: z.array(toolCallDelta).nullish(),
          })
          .default({}),
        usage: usage.nullish(),
      }),
    )
    .default([]),
  usage: usage.nullish(),
});

export type OpenAIUsage = z.infer<typeof usage>;
export type OpenAICompletion = z.infer<typeof openAICompletionSchema>;
export type OpenAIChunk = z.infer<typeof openAIChunkSchema>;
