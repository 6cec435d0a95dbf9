import type { AnswerRequest, ConversationMessage, JsonOutput, ToolChoice, ToolDefinition } from "../../answer.js";
import { isRecord } from "../../json.js";
import { RequestError } from "../chat-request.js";
import { opensReasoning } from "./sealed-reasoning.js";

/** A Responses API request in the simulator's neutral terms, plus what the answer's shape depends on. */
export interface ResponsesRequest {
  answer: AnswerRequest;
  stream: boolean;
  /** Names of the `custom` tools: their calls are `custom_tool_call` items with free-form input. */
  customTools: Set<string>;
  /** `include` asked for `reasoning.encrypted_content`. */
  encryptedReasoning: boolean;
  /** `reasoning.summary` asked for a summary of the reasoning. */
  summary: boolean;
  /** The request's settings, echoed on the response object as OpenAI does. */
  body: Record<string, unknown>;
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

function partsOf(content: unknown): { parts: string[]; images: number } {
  if (typeof content === "string") return { parts: [content], images: 0 };
  if (!Array.isArray(content)) return { parts: [], images: 0 };
  const parts: string[] = [];
  let images = 0;
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === "input_image") images += 1;
    else parts.push(text(part.text));
  }
  return { parts, images };
}

/** One input item as a conversation turn; items that carry no text for the model (reasoning, references) give none. */
function turnOf(item: unknown, index: number): ConversationMessage | undefined {
  if (!isRecord(item))
    throw new RequestError(`Invalid type for 'input[${index}]': expected an object.`, `input[${index}]`);
  const type = item.type ?? "message";
  if (type === "message") return { role: text(item.role) || "user", ...partsOf(item.content) };
  if (type === "function_call")
    return { role: "assistant", parts: [`${text(item.name)}(${text(item.arguments)})`], images: 0 };
  if (type === "custom_tool_call")
    return { role: "assistant", parts: [`${text(item.name)}(${text(item.input)})`], images: 0 };
  if (type === "function_call_output" || type === "custom_tool_call_output") {
    return { role: "tool", ...partsOf(item.output) };
  }
  if (type === "reasoning" && item.encrypted_content != null && !opensReasoning(text(item.encrypted_content))) {
    throw new RequestError(
      `The encrypted content for item ${text(item.id)} could not be verified.`,
      `input[${index}].encrypted_content`,
      "invalid_encrypted_content",
    );
  }
  return undefined;
}

function messagesOf(body: Record<string, unknown>): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  if (typeof body.instructions === "string")
    messages.push({ role: "developer", parts: [body.instructions], images: 0 });
  const input = body.input;
  if (typeof input === "string") messages.push({ role: "user", parts: [input], images: 0 });
  else if (Array.isArray(input)) {
    for (const [index, item] of input.entries()) {
      const turn = turnOf(item, index);
      if (turn) messages.push(turn);
    }
  } else throw new RequestError("Missing required parameter: 'input'.", "input", "missing_required_parameter");
  return messages;
}

/** The tools the model may call itself: function and custom tools (hosted tools run at OpenAI). */
function toolsOf(body: Record<string, unknown>): { tools: ToolDefinition[]; custom: Set<string> } {
  const tools: ToolDefinition[] = [];
  const custom = new Set<string>();
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isRecord(tool) || typeof tool.name !== "string") continue;
    if (tool.type === "function") tools.push({ name: tool.name, parameters: tool.parameters ?? undefined });
    else if (tool.type === "custom") {
      tools.push({ name: tool.name });
      custom.add(tool.name);
    }
  }
  return { tools, custom };
}

function toolChoiceOf(choice: unknown): ToolChoice {
  if (choice === "none" || choice === "required") return choice;
  if (isRecord(choice) && typeof choice.name === "string") return { name: choice.name };
  return "auto";
}

/** Structured output from `text.format`: a flat json_schema, or JSON mode. */
function jsonOf(body: Record<string, unknown>): JsonOutput | undefined {
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
  if (format?.type === "json_schema") return { schema: format.schema };
  return format?.type === "json_object" ? {} : undefined;
}

/** Reads a POST /v1/responses body (https://platform.openai.com/docs/api-reference/responses/create). */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (!isRecord(body)) throw new RequestError("We could not parse the JSON body of your request.");
  if (typeof body.model !== "string" || body.model === "") {
    throw new RequestError("Missing required parameter: 'model'.", "model", "missing_required_parameter");
  }
  const { tools, custom } = toolsOf(body);
  const reasoning = isRecord(body.reasoning) ? body.reasoning : undefined;
  const thinking = reasoning !== undefined && reasoning.effort !== "none";
  const include = Array.isArray(body.include) ? body.include : [];
  const maxTokens = typeof body.max_output_tokens === "number" ? body.max_output_tokens : undefined;
  return {
    answer: {
      model: body.model,
      messages: messagesOf(body),
      tools,
      toolChoice: toolChoiceOf(body.tool_choice),
      parallelToolCalls: body.parallel_tool_calls !== false,
      maxTokens,
      thinking,
      json: jsonOf(body),
    },
    stream: body.stream === true,
    customTools: custom,
    encryptedReasoning: thinking && include.includes("reasoning.encrypted_content"),
    summary: thinking && reasoning?.summary != null,
    body,
  };
}
