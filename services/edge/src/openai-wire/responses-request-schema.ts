import { int32From, modelId, storableText } from "@gateway/platform";
import { z } from "zod";
import { functionName, type ResponsesTool, responsesTool } from "./responses-tool-schema.js";

// OpenAI's Responses request as the gateway serves it on top of chat models. Fields it does not
// interpret are accepted and dropped (clients such as Codex add fields monthly); what it does
// interpret is checked, so a malformed value is refused before any vendor is called.
// https://platform.openai.com/docs/api-reference/responses/create

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
// What a tool returned: text, or parts (Codex's view_image answers with an image).
const toolOutput = z.union([z.string(), z.array(z.discriminatedUnion("type", [inputText, inputImage])).min(1)]);

const messageItem = z.object({
  type: z.literal("message").optional(),
  id: z.string().optional(),
  status: z.string().optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string(), z.array(inputPart).min(1)]),
});

// What every call and call output item has besides its type and payload. Ids and statuses are
// the client's record of an earlier answer, never sent on; OpenAI's own may be null.
const itemRecord = { id: z.string().nullish(), status: z.string().nullish(), call_id: z.string().min(1) };
const execution = z.enum(["server", "client"]).nullish();

const functionCallItem = z.object({
  type: z.literal("function_call"),
  ...itemRecord,
  name: functionName,
  arguments: z.string(),
});

const functionCallOutputItem = z.object({ type: z.literal("function_call_output"), ...itemRecord, output: toolOutput });

// A freeform tool's call replayed as input: its input is the text the model wrote.
const customToolCallItem = z.object({
  type: z.literal("custom_tool_call"),
  ...itemRecord,
  name: functionName,
  input: z.string(),
});

const customToolCallOutputItem = z.object({
  type: z.literal("custom_tool_call_output"),
  ...itemRecord,
  output: toolOutput,
});

// A client-run tool search, and the tools the client found for it (which the model may call next).
const toolSearchCallItem = z.object({
  type: z.literal("tool_search_call"),
  ...itemRecord,
  execution,
  arguments: z.record(z.string(), z.unknown()),
});

const toolSearchOutputItem = z.object({
  type: z.literal("tool_search_output"),
  ...itemRecord,
  execution,
  tools: z.array(responsesTool).max(128),
});

// Tools the client adds in the conversation (Codex sends its namespaces so, with no top-level tools).
const additionalToolsItem = z.object({
  type: z.literal("additional_tools"),
  id: z.string().nullish(),
  role: z.string().nullish(),
  tools: z.array(responsesTool).max(128),
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
const inputItem = z.union([
  functionCallItem,
  functionCallOutputItem,
  customToolCallItem,
  customToolCallOutputItem,
  toolSearchCallItem,
  toolSearchOutputItem,
  additionalToolsItem,
  reasoningItem,
  messageItem,
]);

const namedToolChoiceTypes = ["function", "custom", "allowed_tools"];

const toolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.object({ type: z.enum(["function", "custom"]), name: functionName }),
  z.object({
    type: z.literal("allowed_tools"),
    mode: z.enum(["auto", "required"]),
    tools: z.array(z.looseObject({ type: z.string() })).max(128),
  }),
  // A hosted tool (`{type:"web_search"}`) or one chosen by type alone (`{type:"tool_search"}`).
  z.looseObject({
    type: z
      .string()
      .max(64)
      .refine((type) => !namedToolChoiceTypes.includes(type), "must name the tool"),
  }),
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
    tools: z.array(responsesTool).max(128).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().nullish(),
    max_output_tokens: int32From(1).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    text: z
      .object({ format: textFormat.optional(), verbosity: z.enum(["low", "medium", "high"]).nullish() })
      .optional(),
    stream: z.boolean().nullish(),
    previous_response_id: storableText.min(1).max(256).nullish(),
    store: z.boolean().nullish(),
    metadata: z.record(z.string(), z.string().max(512)).nullish(),
    user: z.string().optional(),
    // Only "reasoning.encrypted_content" changes the answer: reasoning items then carry what the
    // vendor needs back to continue (Claude's signed thinking), for clients that store nothing.
    include: z.array(z.string().max(128)).max(32).nullish(),
    prompt_cache_key: z.string().max(1024).nullish(),
    // Each of these changes what is asked (run later, keep state in a conversation, use a stored
    // prompt), which the chat path cannot do: refused rather than dropped.
    background: z.literal(false, { message: "background responses are not served; leave it out" }).nullish(),
    conversation: z
      .null({ message: "conversations are not served; carry the turns in input or previous_response_id" })
      .optional(),
    prompt: z.null({ message: "stored prompts are not served; send the prompt's text as instructions" }).optional(),
    safety_identifier: z.string().max(1024).nullish(),
    // The effort maps to each vendor's reasoning control as chat's reasoning_effort does; the
    // vendor's thinking text comes back as a reasoning item's summary whatever `summary` asks.
    reasoning: z
      .object({
        effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).nullish(),
        // Codex sends "none" when it wants no summary.
        summary: z.enum(["auto", "concise", "detailed", "none"]).nullish(),
      })
      .nullish(),
  })
  .superRefine((body, context) => {
    const choice = body.tool_choice;
    const named = choice && typeof choice === "object" && (choice.type === "function" || choice.type === "custom");
    if (named && "name" in choice && !body.tools?.some(hasName(choice.name))) {
      context.addIssue({ code: "custom", path: ["tool_choice"], message: "names a tool that is not in tools" });
    }
  });

const hasName =
  (name: unknown) =>
  (tool: ResponsesTool): boolean =>
    ("name" in tool && tool.name === name) ||
    (tool.type === "namespace" && (tool.tools as ResponsesTool[]).some(hasName(name)));

export type ResponsesRequestBody = z.infer<typeof responsesRequestSchema>;
export type ResponsesInputItem = z.infer<typeof inputItem>;
