import { int32From, modelId, storableText } from "@gateway/platform";
import { z } from "zod";

// OpenAI's Responses request, limited to what the gateway serves on top of chat models.
// https://platform.openai.com/docs/api-reference/responses/create

const functionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, underscores or dashes");

const inputText = z.object({ type: z.literal("input_text"), text: z.string() });
const inputImage = z.object({
  type: z.literal("input_image"),
  image_url: z.string().refine((url) => /^(https?:\/\/|data:image\/[a-z0-9.+-]+;base64,)/i.test(url), {
    message: "must be an http(s) URL or a data:image/...;base64, URL",
  }),
  detail: z.enum(["auto", "low", "high"]).optional(),
});
// Earlier assistant output replayed as input.
const outputText = z.object({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: z.array(z.unknown()).optional(),
});
const inputPart = z.discriminatedUnion("type", [inputText, inputImage, outputText]);

const messageItem = z.object({
  type: z.literal("message").optional(),
  id: z.string().optional(),
  status: z.string().optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string(), z.array(inputPart).min(1)]),
});

const functionCallItem = z.object({
  type: z.literal("function_call"),
  id: z.string().optional(),
  status: z.string().optional(),
  call_id: z.string().min(1),
  name: functionName,
  arguments: z.string(),
});

const functionCallOutputItem = z.object({
  type: z.literal("function_call_output"),
  id: z.string().optional(),
  status: z.string().optional(),
  call_id: z.string().min(1),
  output: z.string(),
});

// Earlier reasoning replayed as input, as clients do when they carry a conversation themselves.
const reasoningItem = z.object({
  type: z.literal("reasoning"),
  id: z.string().optional(),
  status: z.string().nullish(),
  summary: z.array(z.object({ type: z.literal("summary_text"), text: z.string() })),
  content: z.array(z.object({ type: z.literal("reasoning_text"), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});

// A message may omit `type`, so items are told apart by it rather than by a discriminated union.
const inputItem = z.union([functionCallItem, functionCallOutputItem, reasoningItem, messageItem]);

const functionTool = z.object({
  type: z.literal("function", { message: "only function tools are supported" }),
  name: functionName,
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const toolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.literal("function"), name: functionName }),
]);

const textFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    name: functionName,
    schema: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    strict: z.boolean().nullish(),
  }),
]);

export const responsesRequestSchema = z
  .object({
    model: modelId,
    // A string is one user message; as items, a bad item is named by its index.
    input: z.preprocess(
      (input) => (typeof input === "string" ? [{ role: "user", content: input }] : input),
      z.array(inputItem).min(1, "must contain at least one item"),
    ),
    instructions: z.string().nullish(),
    tools: z.array(functionTool).max(128).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().nullish(),
    max_output_tokens: int32From(1).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    text: z.object({ format: textFormat.optional() }).strict().optional(),
    stream: z.boolean().nullish(),
    previous_response_id: storableText.min(1).max(256).nullish(),
    store: z.boolean().nullish(),
    metadata: z.record(z.string(), z.string().max(512)).nullish(),
    user: z.string().optional(),
    // The effort maps to each vendor's reasoning control as chat's reasoning_effort does; the
    // vendor's thinking text comes back as a reasoning item's summary whatever `summary` asks.
    reasoning: z
      .object({
        effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).nullish(),
        summary: z.enum(["auto", "concise", "detailed"]).nullish(),
      })
      .strict()
      .nullish(),
  })
  .strict()
  .superRefine((body, context) => {
    if (body.tool_choice && typeof body.tool_choice === "object" && !body.tools?.some(hasName(body.tool_choice.name))) {
      context.addIssue({ code: "custom", path: ["tool_choice"], message: "names a function that is not in tools" });
    }
  });

const hasName = (name: string) => (tool: { name: string }) => tool.name === name;

export type ResponsesRequestBody = z.infer<typeof responsesRequestSchema>;
export type ResponsesInputItem = z.infer<typeof inputItem>;
