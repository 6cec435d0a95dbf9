import { int32From, modelId } from "@gateway/platform";
import { z } from "zod";

// Anthropic's Messages API request as the gateway takes it at POST /v1/messages.
// https://docs.anthropic.com/en/api/messages

// Loose: a cache setting added by a later beta reaches Claude rather than a 400.
const cacheControl = z
  .object({ type: z.literal("ephemeral"), ttl: z.enum(["5m", "1h"]).optional(), scope: z.string().max(64).optional() })
  .loose();
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

const turn = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(contentBlock)]),
});

// Instructions given mid-conversation (beta mid-conversation-system-2026-04-07), where they apply.
const systemMessage = z.object({
  role: z.literal("system"),
  content: z.union([z.string(), z.array(textBlock)]),
});

const message = z.discriminatedUnion("role", [turn, systemMessage]);

/** Anthropic's placement rule: a system message follows a user turn, so it never opens the conversation. */
const placedMessages = z
  .array(message)
  .min(1, "must contain at least one message")
  .max(100_000)
  .superRefine((messages, context) => {
    for (const [index, { role }] of messages.entries()) {
      if (role === "system" && messages[index - 1]?.role !== "user") {
        context.addIssue({
          code: "custom",
          path: [index, "role"],
          message: "a system message must follow a user message",
        });
      }
    }
  });

const toolName = z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, "must be 1-128 letters, digits, underscores or dashes");

const customTool = z.object({
  type: z.literal("custom").optional(),
  name: toolName,
  description: z.string().optional(),
  input_schema: z.object({ type: z.literal("object") }).loose(),
  ...cached,
});

// Server tools (web search, code execution, bash...) name a dated type and are run by Claude
// itself: passed to Claude as written, left out for other vendors.
const serverTool = z
  .object({
    type: z.string().regex(/^[a-z][a-z0-9_]*_\d{8}$/, "must be custom or a dated server tool type"),
    name: toolName,
  })
  .loose();

const tool = z.union([customTool, serverTool]);

const parallel = { disable_parallel_tool_use: z.boolean().optional() };
const toolChoice = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auto"), ...parallel }),
  z.object({ type: z.literal("any"), ...parallel }),
  z.object({ type: z.literal("tool"), name: toolName, ...parallel }),
  z.object({ type: z.literal("none") }),
]);

const thinking = z.discriminatedUnion("type", [
  z.object({ type: z.literal("enabled"), budget_tokens: int32From(1024) }).loose(),
  z.object({ type: z.literal("disabled") }).loose(),
  z.object({ type: z.literal("adaptive") }).loose(),
]);

// Claude's effort (and whatever output setting comes next), also read for other vendors' reasoning.
const outputConfig = z.object({ effort: z.string().max(32).optional() }).loose();

export const messagesRequestSchema = z
  .object({
    model: modelId,
    max_tokens: int32From(1),
    messages: placedMessages,
    system: z.union([z.string(), z.array(textBlock)]).optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: int32From(0).optional(),
    stop_sequences: z.array(z.string()).max(8192).optional(),
    stream: z.boolean().optional(),
    tools: z.array(tool).max(128).optional(),
    tool_choice: toolChoice.optional(),
    metadata: z
      .object({ user_id: z.string().max(256).nullish() })
      .loose()
      .optional(),
    thinking: thinking.optional(),
    // Marks the last cacheable block of the request.
    cache_control: cacheControl.nullish(),
    // Claude-only settings, passed to Claude as they are, like every field not named here.
    service_tier: z.enum(["auto", "standard_only"]).optional(),
    output_config: outputConfig.optional(),
    context_management: z.record(z.string(), z.unknown()).optional(),
    inference_geo: z.string().max(64).nullish(),
    speed: z.enum(["standard", "fast"]).nullish(),
  })
  // Not strict: Claude Code ships a beta field every month, and a closed list would refuse it.
  .loose()
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
    messages: placedMessages,
    system: z.union([z.string(), z.array(textBlock)]).optional(),
    tools: z.array(tool).max(128).optional(),
    tool_choice: toolChoice.optional(),
    thinking: thinking.optional(),
    cache_control: cacheControl.nullish(),
    output_config: outputConfig.optional(),
    context_management: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export type MessagesRequestBody = z.infer<typeof messagesRequestSchema>;
export type CountTokensRequestBody = z.infer<typeof countTokensRequestSchema>;
export type MessageBody = z.infer<typeof message>;
export type ToolBody = z.infer<typeof tool>;

/** A tool the client runs (the schema tried custom first, so a server tool names another type). */
export const isCustomTool = (tool: ToolBody): tool is z.infer<typeof customTool> =>
  tool.type === undefined || tool.type === "custom";
export type ContentBlockBody = z.infer<typeof contentBlock>;
