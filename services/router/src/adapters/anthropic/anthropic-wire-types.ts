import { z } from "zod";

// The parts of Anthropic's Messages API answer and stream events we read, checked at the boundary.
// https://docs.anthropic.com/en/api/messages and https://docs.anthropic.com/en/docs/build-with-claude/streaming

export const anthropicVersion = "2023-06-01";

const usage = z
  .object({
    input_tokens: z.number().int().nullish(),
    output_tokens: z.number().int().nullish(),
    cache_creation_input_tokens: z.number().int().nullish(),
    cache_read_input_tokens: z.number().int().nullish(),
    // What served the call: "fast" or "standard", "us" or "global".
    speed: z.string().nullish(),
    inference_geo: z.string().nullish(),
    // Beta thinking-token-count-2026-05-13: how many of output_tokens the model spent thinking.
    output_tokens_details: z.object({ thinking_tokens: z.number().int().nullish() }).loose().nullish(),
  })
  .loose();

// Output blocks: text, tool_use, thinking and redacted_thinking are mapped; others (server
// tools) pass the check and are ignored. One loose shape, refined per type.
const contentBlock = z
  .object({
    type: z.string(),
    text: z.string().optional(),
    id: z.string().optional(),
    name: z.string().optional(),
    input: z.unknown().optional(),
    thinking: z.string().optional(),
    signature: z.string().optional(),
    data: z.string().optional(),
  })
  .loose()
  .refine((block) => block.type !== "text" || block.text !== undefined, "text block without text")
  .refine((block) => block.type !== "tool_use" || (block.id && block.name), "tool_use block without id or name");

export const anthropicMessageSchema = z.object({
  id: z.string().default(""),
  model: z.string().default(""),
  content: z.array(contentBlock).default([]),
  // A string rather than an enum: a stop reason added later must not fail the whole answer.
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: usage.nullish(),
});

// text_delta, input_json_delta, thinking_delta and signature_delta are mapped; citations_delta
// and whatever comes next are ignored.
const streamDelta = z
  .object({
    type: z.string(),
    text: z.string().optional(),
    partial_json: z.string().optional(),
    thinking: z.string().optional(),
    signature: z.string().optional(),
  })
  .loose()
  .refine((delta) => delta.type !== "text_delta" || delta.text !== undefined, "text_delta without text")
  .refine(
    (delta) => delta.type !== "input_json_delta" || delta.partial_json !== undefined,
    "input_json_delta without partial_json",
  );

/** The stream event types we know; others are skipped, as Anthropic's versioning policy asks. */
export const knownStreamEvents = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping",
  "error",
]);

/** One SSE `data` payload; `type` repeats the SSE event name. */
export const anthropicStreamEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("message_start"),
    message: z.object({ id: z.string().default(""), model: z.string().default(""), usage: usage.nullish() }).loose(),
  }),
  z.object({ type: z.literal("content_block_start"), index: z.number().int(), content_block: contentBlock }),
  z.object({ type: z.literal("content_block_delta"), index: z.number().int(), delta: streamDelta }),
  z.object({ type: z.literal("content_block_stop"), index: z.number().int() }),
  z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }).loose(),
    usage: usage.nullish(),
  }),
  z.object({ type: z.literal("message_stop") }),
  z.object({ type: z.literal("ping") }),
  z.object({
    type: z.literal("error"),
    error: z
      .object({ type: z.string().default(""), message: z.string().default("") })
      .loose()
      .nullish(),
  }),
]);

/** The answer of /v1/messages/count_tokens. */
export const anthropicTokenCountSchema = z.object({ input_tokens: z.number().int().min(0) });

export type AnthropicUsage = z.infer<typeof usage>;
export type AnthropicContentBlock = z.infer<typeof contentBlock>;
export type AnthropicMessage = z.infer<typeof anthropicMessageSchema>;
export type AnthropicStreamEvent = z.infer<typeof anthropicStreamEventSchema>;
