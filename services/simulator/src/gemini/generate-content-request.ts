import type { ConversationMessage, JsonOutput, ToolChoice, ToolDefinition } from "../answer.js";
import { isRecord } from "../json.js";
import { missingSignature, signatureProblem, signsThoughts } from "./thought-signatures.js";

/** A Gemini generateContent request, validated and translated to the simulator's neutral terms. */
export interface GenerateContentRequest {
  model: string;
  messages: ConversationMessage[];
  candidates: number;
  maxTokens: number | undefined;
  stop: string[];
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  /** From `responseMimeType: "application/json"`, with `responseJsonSchema` or `responseSchema`. */
  json: JsonOutput | undefined;
  /** thinkingConfig gave a budget above zero; `showThoughts` when it asked for includeThoughts. */
  thinking: boolean;
  showThoughts: boolean;
}

/** A request Gemini would refuse with 400 INVALID_ARGUMENT. */
export class GeminiRequestError extends Error {}

const functionName = /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/;
const dataFields = [
  "text",
  "inlineData",
  "fileData",
  "functionCall",
  "functionResponse",
  "executableCode",
  "codeExecutionResult",
];

// Each name's snake_case spelling, made once: a request of many parts asks for it per part.
const snakeNames = new Map<string, string>();
const snakeName = (name: string) => {
  let snake = snakeNames.get(name);
  if (snake === undefined) {
    snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    snakeNames.set(name, snake);
  }
  return snake;
};

/** Gemini takes camelCase and snake_case field names alike. */
function field(record: Record<string, unknown>, name: string): unknown {
  return record[name] ?? record[snakeName(name)];
}

const invalid = (path: string, problem: string) =>
  new GeminiRequestError(`* GenerateContentRequest.${path}: ${problem}\n`);

export function parseGenerateContentRequest(model: string, body: unknown): GenerateContentRequest {
  if (body === undefined) throw new GeminiRequestError("Invalid JSON payload received. Unexpected token.");
  if (!isRecord(body)) throw new GeminiRequestError("Invalid JSON payload received. Expected an object.");
  const system = systemOf(field(body, "systemInstruction"));
  const contents = field(body, "contents");
  const messages = [...system, ...contentsOf(contents)];
  if (signsThoughts(model)) checkSignedCalls(contents as unknown[]);
  const { tools, toolChoice } = toolChoiceOf(field(body, "toolConfig"), toolsOf(field(body, "tools")));
  const config = field(body, "generationConfig");
  const generation = isRecord(config) ? config : {};
  return {
    model,
    messages,
    candidates: integer(generation, "candidateCount", 1, 8) ?? 1,
    maxTokens: integer(generation, "maxOutputTokens", 1, Infinity),
    stop: stopOf(field(generation, "stopSequences")),
    tools,
    toolChoice,
    json: jsonOutputOf(generation),
    ...thinkingOf(generation, model),
  };
}

// Gemini 2.5 and 3 think unless told not to (their recorded answers count thoughtsTokenCount with no
// thinkingConfig at all); earlier models only when given a budget.
const thinksByDefault = (model: string) => /^gemini-(2\.5|[3-9])/.test(model);

function thinkingOf(
  generation: Record<string, unknown>,
  model: string,
): Pick<GenerateContentRequest, "thinking" | "showThoughts"> {
  const config = field(generation, "thinkingConfig");
  if (!isRecord(config)) return { thinking: thinksByDefault(model), showThoughts: false };
  const budget = integer(config, "thinkingBudget", -1, 32_768);
  const level = thinkingLevelOf(config, model);
  if (level !== undefined && budget !== undefined) {
    throw invalid("generation_config.thinking_config", "cannot set both thinking_budget and thinking_level.");
  }
  const thinking = budget === undefined ? thinksByDefault(model) : budget !== 0;
  return { thinking, showThoughts: field(config, "includeThoughts") === true };
}

// Gemini 3.x thinks by level (Google's Gemini 3 guide): Pro from low, Flash and Flash-Lite from
// minimal; earlier models take only a budget.
function thinkingLevelOf(config: Record<string, unknown>, model: string): string | undefined {
  const level = field(config, "thinkingLevel");
  if (level == null) return undefined;
  const levels = /^gemini-[3-9][.\d]*-pro/.test(model)
    ? ["low", "medium", "high"]
    : /^gemini-[3-9]/.test(model)
      ? ["minimal", "low", "medium", "high"]
      : [];
  if (levels.length === 0)
    throw invalid("generation_config.thinking_config.thinking_level", "is not supported by this model.");
  if (typeof level !== "string" || !levels.includes(level.toLowerCase())) {
    throw invalid(
      "generation_config.thinking_config.thinking_level",
      `must be one of ${levels.join(", ")} for this model.`,
    );
  }
  return level;
}

function jsonOutputOf(generation: Record<string, unknown>): JsonOutput | undefined {
  if (field(generation, "responseMimeType") !== "application/json") return undefined;
  const schema = field(generation, "responseJsonSchema") ?? field(generation, "responseSchema");
  return schema === undefined ? {} : { schema };
}

function integer(record: Record<string, unknown>, name: string, lowest: number, highest: number) {
  const value = field(record, name);
  if (value == null) return undefined;
  if (!Number.isInteger(value) || (value as number) < lowest || (value as number) > highest) {
    const range = highest === Infinity ? `at least ${lowest}` : `between ${lowest} and ${highest}`;
    throw invalid(`generation_config.${name}`, `must be an integer ${range}.`);
  }
  return value as number;
}

function stopOf(value: unknown): string[] {
  if (value == null) return [];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string") || value.length > 5) {
    throw invalid("generation_config.stop_sequences", "must be a list of at most 5 strings.");
  }
  return value;
}

function systemOf(value: unknown): ConversationMessage[] {
  if (value == null) return [];
  const parts = isRecord(value) ? field(value, "parts") : undefined;
  if (!Array.isArray(parts)) throw invalid("system_instruction.parts", "must be a list of parts.");
  const texts = parts.filter(isRecord).flatMap((part) => (typeof part.text === "string" ? [part.text] : []));
  return [{ role: "system", parts: texts, images: 0 }];
}

function contentsOf(value: unknown): ConversationMessage[] {
  if (value == null || (Array.isArray(value) && value.length === 0)) {
    throw invalid("contents", "contents is not specified");
  }
  if (!Array.isArray(value)) throw new GeminiRequestError('Invalid JSON payload received. "contents" must be a list.');
  return value.flatMap(contentOf);
}

/** One Content becomes one message, except that function responses become tool messages of their own. */
function contentOf(content: unknown, index: number): ConversationMessage[] {
  if (!isRecord(content)) throw invalid(`contents[${index}]`, "must be an object.");
  const role = content.role ?? "user";
  if (role !== "user" && role !== "model") throw new GeminiRequestError("Please use a valid role: user, model.");
  const parts = field(content, "parts");
  if (!Array.isArray(parts) || parts.length === 0) {
    throw invalid(`contents[${index}].parts`, "contents.parts must not be empty.");
  }
  const tools: ConversationMessage[] = [];
  const message: ConversationMessage = { role: role === "model" ? "assistant" : "user", parts: [], images: 0 };
  for (const [partIndex, part] of parts.entries()) {
    const path = `contents[${index}].parts[${partIndex}]`;
    if (!isRecord(part) || !dataFields.some((name) => field(part, name) !== undefined)) {
      throw invalid(`${path}.data`, "required oneof field 'data' must have one initialized field");
    }
    const response = field(part, "functionResponse");
    if (typeof part.text === "string") {
      if (part.text === "") {
        throw new GeminiRequestError(
          "Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.",
        );
      }
      message.parts.push(part.text);
    } else if (field(part, "inlineData") !== undefined || field(part, "fileData") !== undefined) {
      message.images += 1;
    } else if (response !== undefined) {
      tools.push({ role: "tool", parts: [functionResult(response, path)], images: 0 });
    }
  }
  const hasContent = message.parts.length > 0 || message.images > 0 || role === "model";
  return hasContent ? [...tools, message] : tools;
}

const partsOf = (content: unknown) => field(content as Record<string, unknown>, "parts") as unknown[];

/** A user turn that asks something, rather than only answering calls, starts the current turn. */
const asks = (content: unknown) =>
  isRecord(content) &&
  content.role !== "model" &&
  partsOf(content).some((part) => isRecord(part) && field(part, "functionResponse") === undefined);

/**
 * Gemini 3 checks the model steps of the current turn: the first functionCall of each must come
 * back with the signature it was given, and any signature sent must be one it gave.
 */
function checkSignedCalls(contents: unknown[]): void {
  const start = contents.findLastIndex(asks);
  for (let index = start + 1; index < contents.length; index++) {
    const content = contents[index];
    if (!isRecord(content) || content.role !== "model") continue;
    let first = true;
    for (const [partIndex, part] of partsOf(content).entries()) {
      const call = isRecord(part) ? field(part, "functionCall") : undefined;
      if (!isRecord(call)) continue;
      const name = String(call.name);
      const signature = field(part as Record<string, unknown>, "thoughtSignature");
      const problem =
        signature === undefined
          ? first && missingSignature(name, index + 1)
          : signatureProblem(signature, name, `contents[${index}].parts[${partIndex}]`);
      if (problem) throw new GeminiRequestError(problem);
      first = false;
    }
  }
}

/** What the model "read" back from a function: the `result` when that is all there is, else the JSON. */
function functionResult(value: unknown, path: string): string {
  const response = isRecord(value) ? value.response : undefined;
  if (!isRecord(value) || typeof value.name !== "string" || !isRecord(response)) {
    throw invalid(`${path}.function_response`, "needs a name and a response object.");
  }
  const keys = Object.keys(response);
  if (keys.length === 1 && keys[0] === "result") {
    return typeof response.result === "string" ? response.result : JSON.stringify(response.result);
  }
  return JSON.stringify(response);
}

function toolsOf(value: unknown): ToolDefinition[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw new GeminiRequestError('Invalid JSON payload received. "tools" must be a list.');
  const tools: ToolDefinition[] = [];
  for (const [index, tool] of value.entries()) {
    // Other tools (googleSearch, codeExecution, urlContext) exist; the simulator only calls functions.
    const declarations = isRecord(tool) ? field(tool, "functionDeclarations") : undefined;
    if (!Array.isArray(declarations)) continue;
    for (const [position, declaration] of declarations.entries()) {
      const path = `tools[${index}].function_declarations[${position}]`;
      if (!isRecord(declaration) || typeof declaration.name !== "string" || !functionName.test(declaration.name)) {
        throw invalid(
          `${path}.name`,
          "Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 128.",
        );
      }
      const parameters = declaration.parameters ?? field(declaration, "parametersJsonSchema");
      const properties = isRecord(parameters) ? parameters.properties : undefined;
      if (
        declaration.parameters !== undefined &&
        isRecord(parameters) &&
        String(parameters.type).toUpperCase() === "OBJECT" &&
        (!isRecord(properties) || Object.keys(properties).length === 0)
      ) {
        throw invalid(`${path}.parameters.properties`, "should be non-empty for OBJECT type");
      }
      tools.push({ name: declaration.name, parameters });
    }
  }
  return tools;
}

/** Reads toolConfig; allowedFunctionNames narrows the tools the simulated model may call. */
function toolChoiceOf(value: unknown, tools: ToolDefinition[]): { tools: ToolDefinition[]; toolChoice: ToolChoice } {
  const config = isRecord(value) ? field(value, "functionCallingConfig") : undefined;
  if (!isRecord(config)) return { tools, toolChoice: "auto" };
  const mode = config.mode ?? "AUTO";
  const allowed = field(config, "allowedFunctionNames");
  if (mode === "AUTO" || mode === "VALIDATED") return { tools, toolChoice: "auto" };
  if (mode === "NONE") return { tools, toolChoice: "none" };
  if (mode !== "ANY") {
    throw invalid("tool_config.function_calling_config.mode", `invalid value "${String(mode)}".`);
  }
  if (allowed === undefined) return { tools, toolChoice: "required" };
  if (!Array.isArray(allowed) || allowed.some((name) => !tools.some((tool) => tool.name === name))) {
    throw invalid(
      "tool_config.function_calling_config.allowed_function_names",
      "every name must be one of the declared functions.",
    );
  }
  if (allowed.length === 1) return { tools, toolChoice: { name: allowed[0] as string } };
  return { tools: tools.filter((tool) => allowed.includes(tool.name)), toolChoice: "required" };
}
