import { int32From, modelId } from "@gateway/platform";
import { z } from "zod";

// OpenAI's chat request as the spec bounds it.
// https://platform.openai.com/docs/api-reference/chat/create

// cache_control on a text part marks an Anthropic prompt-cache breakpoint (the convention of
// OpenRouter and LiteLLM); other vendors cache on their own and ignore it.
const textPart = z.object({
  type: z.literal("text"),
  text: z.string(),
  cache_control: z.object({ type: z.literal("ephemeral"), ttl: z.enum(["5m", "1h"]).optional() }).nullish(),
});
const imagePart = z.object({
  type: z.literal("image_url"),
  image_url: z.object({
    url: z.string().refine((url) => /^(https?:\/\/|data:image\/[a-z0-9.+-]+;base64,)/i.test(url), {
      message: "must be an http(s) URL or a data:image/...;base64, URL",
    }),
    detail: z.enum(["auto", "low", "high"]).optional(),
  }),
});
const userPart = z.discriminatedUnion("type", [textPart, imagePart]);

const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const textContent = z.union([z.string(), z.array(textPart).min(1)]);

// Claude's thinking as the gateway shows it on assistant messages (and takes it back, so a
// tool loop with thinking keeps its signatures): the shape LiteLLM made common.
const thinkingBlock = z.discriminatedUnion("type", [
  z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal("redacted_thinking"), data: z.string() }),
]);

export const chatMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: textContent, name: z.string().optional() }),
  z.object({ role: z.literal("developer"), content: textContent, name: z.string().optional() }),
  z.object({
    role: z.literal("user"),
    content: z.union([z.string(), z.array(userPart).min(1)]),
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal("assistant"),
    content: textContent.nullish(),
    name: z.string().optional(),
    tool_calls: z.array(toolCall).optional(),
    function_call: z.object({ name: z.string().min(1), arguments: z.string() }).optional(),
    reasoning_content: z.string().nullish(),
    thinking_blocks: z.array(thinkingBlock).max(64).nullish(),
    refusal: z.string().nullish(),
  }),
  z.object({ role: z.literal("tool"), content: textContent, tool_call_id: z.string().min(1) }),
  // The deprecated function-calling shapes, still sent by older clients.
  z.object({ role: z.literal("function"), name: z.string().min(1), content: z.string().nullable() }),
]);

const functionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, underscores or dashes");

const tool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: functionName,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

const legacyFunction = z.object({
  name: functionName,
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

const legacyFunctionCall = z.union([z.enum(["none", "auto"]), z.object({ name: functionName })]);

const toolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: functionName }) }),
]);

const responseFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z
      .object({
        name: functionName,
        description: z.string().optional(),
        schema: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().nullish(),
      })
      .loose(),
  }),
]);

const positiveInt = int32From(1);

/** Fields we pass to vendors that understand them without modelling them ourselves. */
export const passThroughFields = [
  "logprobs",
  "top_logprobs",
  "logit_bias",
  "metadata",
  "store",
  "service_tier",
  "modalities",
  "verbosity",
  "prediction",
  "prompt_cache_key",
  "safety_identifier",
  "web_search_options",
  "thinking",
  "enable_thinking",
  "thinking_budget",
] as const;

export const chatRequestSchema = z
  .object({
    model: modelId,
    messages: z.array(chatMessageSchema).min(1, "must contain at least one message"),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    max_tokens: positiveInt.nullish(),
    max_completion_tokens: positiveInt.nullish(),
    n: z.number().int().min(1).max(128).nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
    seed: z.number().int().nullish(),
    presence_penalty: z.number().min(-2).max(2).nullish(),
    frequency_penalty: z.number().min(-2).max(2).nullish(),
    user: z.string().optional(),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullish(),
    tools: z.array(tool).max(128).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().optional(),
    response_format: responseFormat.optional(),
    functions: z.array(legacyFunction).min(1).max(128).optional(),
    function_call: legacyFunctionCall.optional(),
    reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).nullish(),
    ...Object.fromEntries(passThroughFields.map((field) => [field, z.unknown().optional()])),
  })
  .strict()
  .superRefine((body, context) => {
    if (body.stream_options && !body.stream) {
      context.addIssue({ code: "custom", path: ["stream_options"], message: "is only allowed when stream is true" });
    }
    if (body.functions && (body.tools || body.tool_choice)) {
      context.addIssue({ code: "custom", path: ["functions"], message: "cannot be combined with tools; use tools" });
    }
    if (body.function_call && !body.functions) {
      context.addIssue({ code: "custom", path: ["function_call"], message: "requires functions" });
    }
    if (body.tool_choice && typeof body.tool_choice === "object" && !body.tools?.length) {
      context.addIssue({ code: "custom", path: ["tool_choice"], message: "names a function but no tools were given" });
    }
  });

export type ChatRequestBody = z.infer<typeof chatRequestSchema>;
export type ChatMessageBody = z.infer<typeof chatMessageSchema>;
