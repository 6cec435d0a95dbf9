import type { Tool } from "@gateway/proto/router/v1/chat";
import {
  type CustomTool,
  type FunctionTool,
  isCustomTool,
  isFunctionTool,
  isNamespaceTool,
  isToolSearchTool,
  type ResponsesTool,
  type ToolSearchTool,
} from "./responses-tool-schema.js";

// Responses tools as chat function tools. Chat vendors call functions only, so a freeform
// (custom) tool becomes a function taking its text as one string, and a tool search the client
// runs becomes a function; the model's calls of them go back to the client as the item types it
// defined them with. Hosted tools (web_search, file_search, code_interpreter, image generation,
// MCP servers...) have no counterpart in the canonical request and are left out, named in the
// answer's `x-gateway-dropped-tools` header, so the agent goes on without them.

/** What a chat function stands for in the client's request. */
export type CallKind = "function" | "custom" | "tool_search";

/** What a chat function stands for: its kind, and the namespace its tool was defined in. */
export interface ChatFunction {
  kind: CallKind;
  namespace?: string;
}

/** Each chat function by name, to render the model's calls as the client's items. */
export type ToolKinds = ReadonlyMap<string, ChatFunction>;

export interface ChatTools {
  tools: Tool[];
  kinds: ToolKinds;
  /** The types of the tools left out, each once, in order. */
  dropped: string[];
}

/** The one function a client-run tool search becomes: the model calls it as OpenAI's would be. */
export const toolSearchFunction = "tool_search";

const toolSearchParameters = {
  type: "object",
  properties: { query: { type: "string", description: "What the tools to find should do" } },
  required: ["query"],
};

const customToolParameters = {
  type: "object",
  properties: { input: { type: "string", description: "The tool's whole input, as plain text" } },
  required: ["input"],
  additionalProperties: false,
};

/** The syntax a freeform tool's input must follow, told to the model since a function cannot enforce it. */
function customToolDescription(tool: CustomTool): string {
  const format = tool.format;
  const syntax =
    format?.type === "grammar"
      ? ` It must match this ${format.syntax === "lark" ? "Lark grammar" : "regular expression"}:\n${format.definition}`
      : "";
  const purpose = tool.description ? `${tool.description}\n\n` : "";
  return `${purpose}Call this tool with one argument, "input": the tool's input as plain text, not JSON.${syntax}`;
}

function customToChat(tool: CustomTool): Tool {
  return {
    name: tool.name,
    description: customToolDescription(tool),
    parametersJson: JSON.stringify(customToolParameters),
  };
}

function functionToChat(tool: FunctionTool): Tool {
  return {
    name: tool.name,
    description: tool.description ?? undefined,
    parametersJson: tool.parameters ? JSON.stringify(tool.parameters) : undefined,
    strict: tool.strict ?? undefined,
  };
}

function toolSearchToChat(tool: ToolSearchTool): Tool {
  return {
    name: toolSearchFunction,
    description: tool.description ?? "Finds more tools to call, by what they should do.",
    parametersJson: JSON.stringify(tool.parameters ?? toolSearchParameters),
  };
}

/** A tool search the vendor would run itself is hosted; only the client-run one is a function. */
const runsOnClient = (tool: ResponsesTool): tool is ToolSearchTool =>
  isToolSearchTool(tool) && tool.execution === "client";

/** The chat tools for a request's tools (and those a client's tool search loaded). */
export function toChatTools(tools: readonly ResponsesTool[]): ChatTools {
  const chat: Tool[] = [];
  const kinds = new Map<string, ChatFunction>();
  const dropped = new Set<string>();
  // A name defined twice (a loaded tool the request already had, or one in two namespaces) is
  // offered once, as chat functions have no namespaces: the first definition wins.
  const add = (tool: Tool, kind: CallKind, namespace?: string) => {
    if (kinds.has(tool.name)) return;
    kinds.set(tool.name, namespace === undefined ? { kind } : { kind, namespace });
    chat.push(tool);
  };
  const addCallable = (tool: FunctionTool | CustomTool, namespace?: string) =>
    isFunctionTool(tool)
      ? add(functionToChat(tool), "function", namespace)
      : add(customToChat(tool), "custom", namespace);
  for (const tool of tools) {
    if (isFunctionTool(tool) || isCustomTool(tool)) addCallable(tool);
    else if (isNamespaceTool(tool)) for (const inner of tool.tools) addCallable(inner, tool.name);
    else if (runsOnClient(tool)) add(toolSearchToChat(tool), "tool_search");
    else dropped.add(tool.type);
  }
  return { tools: chat, kinds, dropped: [...dropped] };
}
