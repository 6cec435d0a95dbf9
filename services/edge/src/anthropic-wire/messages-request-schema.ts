import { int32From, modelId } from "@gateway/platform";
import { z } from "zod";

// Anthropic's Messages API request as the gateway takes it at POST /v1/messages.
// https://docs.anthropic.com/en/api/messages

const cacheControl = z.object({ type: z.literal("ephemeral"), ttl: z.enum(["5m", "1h"]).optional() });
const cached = { cache_control: cacheControl.nullish() };

const textBlock = z.object({ type: z.literal("text"), text: z.string(), ...cached });

const imageSource = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("base64"),
    media_type: z.enum(["image/jpeg", "image/png", "image/gif", "image/webp"]),
    data: z.string().min(1),
  }),
  z.object({ type: z.literal("url"), url: z.string().regex(/^https?:\/\//i, "must be an http(s) URL") }),
]);
const imageBlock = z.object({ type: z.literal("image"), source: imageSource, ...cached });

const documentSource = z.discriminatedUnion("type", [
  z.object({ type: z.literal("base64"), media_type: z.literal("application/pdf"), data: z.string().min(1) }),
  z.object({ type: z.literal("url"), url: z.string().regex(/^https?:\/\//i, "must be an http(s) URL") }),
  z.object({ type: z.literal("text"), media_type: z.literal("text/plain"), data: z.string() }),
]);
const documentBlock = z.object({
  type: z.literal("document"),
  source: documentSource,
  title: z.string().nullish(),
  context: z.string().nullish(),
  ...cached,
});

const toolUseBlock = z.object({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  ...cached,
});

const toolResultBlock = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z
    .union([z.string(), z.array(z.discriminatedUnion("type", [textBlock, imageBlock, documentBlock]))])
    .optional(),
  is_error: z.boolean().optional(),
  ...cached,
});

const thinkingBlock = z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() });
const redactedThinkingBlock = z.object({ type: z.literal("redacted_thinking"), data: z.string() });

const contentBlock = z.discriminatedUnion("type", [
  textBlock,
  imageBlock,
  documentBlock,
  toolUseBlock,
  toolResultBlock,
  thinkingBlock,
  redactedThinkingBlock,
]);

const message = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(contentBlock)]),
});

const toolName = z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, "must be 1-128 letters, digits, underscores or dashes");

const tool = z.object({
  // Server tools (web search, code execution...) name a dated type; the gateway serves custom tools.
  type: z.literal("custom").optional(),
  name: toolName,
  description: z.string().optional(),
  input_schema: z.object({ type: z.literal("object") }).loose(),
  ...cached,
});

const parallel = { disable_parallel_tool_use: z.boolean().optional() };
const toolChoice = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auto"), ...parallel }),
  z.object({ type: z.literal("any"), ...parallel }),
  z.object({ type: z.literal("tool"), name: toolName, ...parallel }),
  z.object({ type: z.literal("none") }),
]);

const thinking = z.discriminatedUnion("type", [
  z.object({ type: z.literal("enabled"), budget_tokens: int32From(1024) }),
  z.object({ type: z.literal("disabled") }),
  z.object({ type: z.literal("adaptive") }),
]);

export const messagesRequestSchema = z
  .object({
    model: modelId,
    max_tokens: int32From(1),
    messages: z.array(message).min(1, "must contain at least one message").max(100_000),
    system: z.union([z.string(), z.array(textBlock)]).optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: int32From(0).optional(),
    stop_sequences: z.array(z.string()).max(8192).optional(),
    stream: z.boolean().optional(),
    tools: z.array(tool).max(128).optional(),
    tool_choice: toolChoice.optional(),
    metadata: z.object({ user_id: z.string().max(256).nullish() }).optional(),
    thinking: thinking.optional(),
    // Marks the last cacheable block of the request.
    cache_control: cacheControl.nullish(),
    // Claude-only settings, passed to Claude as they are.
    service_tier: z.enum(["auto", "standard_only"]).optional(),
    output_config: z.record(z.string(), z.unknown()).optional(),
    inference_geo: z.string().max(64).nullish(),
    speed: z.enum(["standard", "fast"]).nullish(),
  })
  .strict()
  .superRefine((body, context) => {
    if (body.thinking?.type === "enabled" && body.thinking.budget_tokens >= body.max_tokens) {
      context.addIssue({
        code: "custom",
        path: ["thinking", "budget_tokens"],
        message: "must be less than max_tokens",
      });
    }
    if (body.tool_choice?.type === "tool" && !body.tools?.length) {
      context.addIssue({ code: "custom", path: ["tool_choice"], message: "names a tool but no tools were given" });
    }
  });

/** count_tokens takes the request without what only shapes the answer. */
export const countTokensRequestSchema = z
  .object({
    model: modelId,
    messages: z.array(message).min(1, "must contain at least one message").max(100_000),
    system: z.union([z.string(), z.array(textBlock)]).optional(),
    tools: z.array(tool).max(128).optional(),
    tool_choice: toolChoice.optional(),
    thinking: thinking.optional(),
    cache_control: cacheControl.nullish(),
    output_config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type MessagesRequestBody = z.infer<typeof messagesRequestSchema>;
export type CountTokensRequestBody = z.infer<typeof countTokensRequestSchema>;
export type MessageBody = z.infer<typeof message>;
export type ContentBlockBody = z.infer<typeof contentBlock>;
