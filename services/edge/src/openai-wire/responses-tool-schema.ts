import { z } from "zod";

// The tools a Responses request may define. Function, custom (freeform) and client-run tool
// search tools are checked field by field, since the gateway turns them into chat tools; every
// other type (hosted tools such as web_search, and types newer than this code) is taken as sent,
// because coding agents send the vendor's whole list and refusing one tool stops the agent.
// https://platform.openai.com/docs/api-reference/responses/create#responses_create-tools

export const functionName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, underscores or dashes");

const parameters = z.record(z.string(), z.unknown());

const functionTool = z.object({
  type: z.literal("function"),
  name: functionName,
  description: z.string().nullish(),
  parameters: parameters.nullish(),
  strict: z.boolean().nullish(),
});

// A freeform tool: the model writes its input as plain text, in the syntax `format` describes.
const customTool = z.object({
  type: z.literal("custom"),
  name: functionName,
  description: z.string().nullish(),
  format: z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("text") }),
      z.object({ type: z.literal("grammar"), syntax: z.enum(["lark", "regex"]), definition: z.string() }),
    ])
    .nullish(),
});

const toolSearchTool = z.object({
  type: z.literal("tool_search"),
  execution: z.enum(["server", "client"]).nullish(),
  description: z.string().nullish(),
  parameters: parameters.nullish(),
});

// A group of tools under one name (Codex's multi_agent_v1, functions, collaboration...): the
// model calls the tools inside it, and its calls name the namespace.
const namespaceTool = z.object({
  type: z.literal("namespace"),
  name: functionName,
  description: z.string().nullish(),
  tools: z
    .array(z.discriminatedUnion("type", [functionTool, customTool]))
    .min(1)
    .max(128),
});

const modelledTools = {
  function: functionTool,
  custom: customTool,
  tool_search: toolSearchTool,
  namespace: namespaceTool,
};

export type FunctionTool = z.infer<typeof functionTool>;
export type CustomTool = z.infer<typeof customTool>;
export type ToolSearchTool = z.infer<typeof toolSearchTool>;
export type NamespaceTool = z.infer<typeof namespaceTool>;
/** A tool of a type the gateway does not model, kept as the client wrote it. */
export type OtherTool = { type: string; [field: string]: unknown };
export type ResponsesTool = FunctionTool | CustomTool | ToolSearchTool | NamespaceTool | OtherTool;

const isModelled = (type: string): type is keyof typeof modelledTools => Object.hasOwn(modelledTools, type);

/** A tool is checked by the schema its `type` names; a malformed modelled tool is named by its field. */
export const responsesTool = z
  // A type is a word (it is named back in a header when the tool is left out).
  .looseObject({ type: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be a tool type such as function") })
  .transform((tool, context): ResponsesTool => {
    if (!isModelled(tool.type)) return tool;
    const parsed = modelledTools[tool.type].safeParse(tool);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) context.addIssue({ ...issue });
    return z.NEVER;
  });

export const isFunctionTool = (tool: ResponsesTool): tool is FunctionTool => tool.type === "function";
export const isCustomTool = (tool: ResponsesTool): tool is CustomTool => tool.type === "custom";
export const isToolSearchTool = (tool: ResponsesTool): tool is ToolSearchTool => tool.type === "tool_search";
export const isNamespaceTool = (tool: ResponsesTool): tool is NamespaceTool => tool.type === "namespace";
