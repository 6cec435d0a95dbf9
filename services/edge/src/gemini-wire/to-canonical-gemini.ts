import { invalidRequest } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { ChatRequest, ContentPart, Message, Tool, ToolChoice } from "@gateway/proto/router/v1/chat";
import { thinkingBlockOf } from "./claude-thought-parts.js";
import type { ContentBody, GenerateContentBody, PartBody } from "./gemini-request-schema.js";
import { jsonSchemaOf } from "./json-schema-of.js";

type Config = NonNullable<GenerateContentBody["generationConfig"]>;

interface OpenCall {
  id: string;
  answered: boolean;
}

/** Calls in the order they were made; the oldest is taken first, and answered ones are skipped once. */
class CallQueue {
  private readonly calls: OpenCall[] = [];
  private head = 0;

  add(call: OpenCall): void {
    this.calls.push(call);
  }

  oldestOpen(): OpenCall | undefined {
    while (this.calls[this.head]?.answered) this.head += 1;
    return this.calls[this.head];
  }
}

function queueOf(queues: Map<string, CallQueue>, key: string): CallQueue {
  const queue = queues.get(key) ?? new CallQueue();
  queues.set(key, queue);
  return queue;
}

/**
 * Gives every functionCall of the history an id (Gemini's own are optional) and pairs each
 * functionResponse with the call it answers: by id when it names one, else the oldest open
 * call of that name, which is how Gemini itself pairs them. Each call is queued under its name
 * and under its name and id, so pairing takes constant time whatever the history's length.
 */
class CallPairing {
  private next = 0;
  private readonly byName = new Map<string, CallQueue>();
  private readonly byId = new Map<string, CallQueue>();

  // A function name holds no newline, so the key is unambiguous.
  private static idKey = (name: string, id: string) => `${name}\n${id}`;

  call(name: string, id: string | undefined): string {
    const call = { id: id ?? `call_${this.next++}`, answered: false };
    queueOf(this.byName, name).add(call);
    queueOf(this.byId, CallPairing.idKey(name, call.id)).add(call);
    return call.id;
  }

  answer(name: string, id: string | undefined, where: string): string {
    const named = id === undefined ? undefined : this.byId.get(CallPairing.idKey(name, id))?.oldestOpen();
    const call = named ?? this.byName.get(name)?.oldestOpen();
    if (call === undefined) {
      throw invalidRequest(
        `The functionResponse for '${name}' answers no functionCall of an earlier model turn.`,
        where,
      );
    }
    call.answered = true;
    return call.id;
  }
}

const imageType = /^image\/[a-z0-9.+-]+$/i;

function imagePart(part: PartBody, where: string): ContentPart {
  if (part.inlineData) {
    if (!imageType.test(part.inlineData.mimeType)) {
      throw invalidRequest("Only image inline data is supported (mimeType image/...).", `${where}.inlineData.mimeType`);
    }
    return { imageUrl: { url: `data:${part.inlineData.mimeType};base64,${part.inlineData.data}` } };
  }
  const file = part.fileData!;
  if (file.mimeType !== undefined && !imageType.test(file.mimeType)) {
    throw invalidRequest("Only image files are supported (mimeType image/...).", `${where}.fileData.mimeType`);
  }
  // Fetched by router through its SSRF-safe client for vendors that only take inline bytes.
  if (!/^https?:\/\//i.test(file.fileUri)) {
    throw invalidRequest("fileUri must be an http(s) URL of an image.", `${where}.fileData.fileUri`);
  }
  return { imageUrl: { url: file.fileUri } };
}

/**
 * A model turn. Thought text is the turn's reasoning; a signed thought part (Claude's thinking,
 * as this API renders it) closes a thinking block, which goes first among the turn's parts, as
 * Claude wants it back; Gemini models leave such blocks out.
 */
function modelTurn(content: ContentBody, where: string, pairing: CallPairing): Message {
  const message: Message = { role: "assistant", parts: [], toolCalls: [] };
  const thinking: ContentPart[] = [];
  let text: string | undefined;
  let thoughts: string | undefined;
  let unsignedThought = "";
  for (const [index, part] of content.parts.entries()) {
    const { thoughtSignature } = part;
    if (part.text !== undefined && part.thought) {
      thoughts = (thoughts ?? "") + part.text;
      unsignedThought += part.text;
      if (thoughtSignature === undefined) continue;
      thinking.push({ thinking: thinkingBlockOf(unsignedThought, thoughtSignature, `${where}.parts[${index}]`) });
      unsignedThought = "";
    } else if (part.text !== undefined) {
      text = (text ?? "") + part.text;
      message.thoughtSignature = thoughtSignature ?? message.thoughtSignature;
    } else if (part.functionCall) {
      const { name, id, args } = part.functionCall;
      const call = { id: pairing.call(name, id), name, arguments: JSON.stringify(args ?? {}) };
      message.toolCalls.push({ ...call, thoughtSignature });
    } else {
      throw invalidRequest("A model turn may hold only text and functionCall parts.", `${where}.parts[${index}]`);
    }
  }
  message.reasoningContent = thoughts || undefined;
  if (thinking.length > 0) message.parts = [...thinking, ...(text ? [{ text }] : [])];
  else message.text = text ?? (message.toolCalls.length > 0 ? undefined : "");
  return message;
}

/** A user turn: its function responses become tool messages, the rest one user message after them. */
function userTurn(content: ContentBody, where: string, pairing: CallPairing): Message[] {
  const results: Message[] = [];
  const parts: ContentPart[] = [];
  for (const [index, part] of content.parts.entries()) {
    const at = `${where}.parts[${index}]`;
    if (part.functionResponse) {
      const { name, id, response } = part.functionResponse;
      const toolCallId = pairing.answer(name, id, `${at}.functionResponse`);
      results.push({ role: "tool", text: JSON.stringify(response), parts: [], toolCalls: [], name, toolCallId });
    } else if (part.text !== undefined) {
      parts.push({ text: part.text });
    } else if (part.functionCall) {
      throw invalidRequest("A functionCall belongs in a model turn.", at);
    } else {
      parts.push(imagePart(part, at));
    }
  }
  return parts.length > 0 ? [...results, { role: "user", parts, toolCalls: [] }] : results;
}

function systemMessage(body: GenerateContentBody): Message[] {
  const instruction = body.systemInstruction;
  if (!instruction) return [];
  const parts = instruction.parts.map((part, index): ContentPart => {
    if (part.text === undefined)
      throw invalidRequest("systemInstruction holds text only.", `systemInstruction.parts[${index}]`);
    return { text: part.text };
  });
  return [{ role: "system", parts, toolCalls: [] }];
}

function toMessages(body: GenerateContentBody): Message[] {
  const pairing = new CallPairing();
  const turns = body.contents.flatMap((content, index) =>
    content.role === "model"
      ? [modelTurn(content, `contents[${index}]`, pairing)]
      : userTurn(content, `contents[${index}]`, pairing),
  );
  return [...systemMessage(body), ...turns];
}

function toTools(body: GenerateContentBody): Tool[] {
  const declarations = (body.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []);
  return declarations.map((declaration) => {
    const schema = declaration.parametersJsonSchema ?? (declaration.parameters && jsonSchemaOf(declaration.parameters));
    return {
      name: declaration.name,
      description: declaration.description,
      parametersJson: schema ? JSON.stringify(schema) : undefined,
    };
  });
}

/**
 * toolConfig as a tool choice. ANY with several allowed names has no single-choice equivalent:
 * the other functions are left out and a call is required.
 */
function toToolChoice(body: GenerateContentBody, tools: Tool[]): { toolChoice?: ToolChoice; tools: Tool[] } {
  const config = body.toolConfig?.functionCallingConfig;
  if (!config) return { tools };
  if (config.mode === "NONE") return { toolChoice: { mode: "none" }, tools };
  if (config.mode !== "ANY") return { toolChoice: { mode: "auto" }, tools };
  const allowed = config.allowedFunctionNames;
  if (!allowed) return { toolChoice: { mode: "required" }, tools };
  const declared = new Set(tools.map((tool) => tool.name));
  const unknown = allowed.find((name) => !declared.has(name));
  if (unknown !== undefined) {
    throw invalidRequest(
      `allowedFunctionNames names '${unknown}', which no functionDeclaration declares.`,
      "toolConfig.functionCallingConfig.allowedFunctionNames",
    );
  }
  if (allowed.length === 1) return { toolChoice: { mode: "function", functionName: allowed[0] }, tools };
  const allowedNames = new Set(allowed);
  return { toolChoice: { mode: "required" }, tools: tools.filter((tool) => allowedNames.has(tool.name)) };
}

function toResponseFormat(config: Config | undefined): ChatRequest["responseFormat"] {
  if (config?.responseMimeType !== "application/json") return undefined;
  const schema = config.responseJsonSchema ?? (config.responseSchema && jsonSchemaOf(config.responseSchema));
  if (!schema) return { type: "json_object" };
  return { type: "json_schema", jsonSchemaJson: JSON.stringify({ name: "response", schema }) };
}

/**
 * thinkingConfig as the canonical thinking settings every vendor with thinking reads: a budget
 * (0 turns thinking off) or a level, which is OpenAI's reasoning effort. Undefined when it asks
 * only for Gemini's own dynamic thinking (a -1 budget, or thoughts shown at the model's default).
 */
function toThinking(config: Config | undefined): Pick<ChatRequest, "thinking" | "reasoningEffort"> | undefined {
  const { thinkingBudget: budget, thinkingLevel: level } = config?.thinkingConfig ?? {};
  if (budget === 0) return { thinking: { type: "disabled" } };
  if (budget !== undefined && budget > 0) return { thinking: { type: "enabled", budgetTokens: budget } };
  return level === undefined ? undefined : { reasoningEffort: level.toLowerCase() };
}

/**
 * What only Gemini understands rides in the pass-through JSON under `gemini`, which router's
 * Gemini adapter sends as written and other adapters drop: safety settings, and a thinkingConfig
 * with no canonical counterpart.
 */
function extraJsonOf(body: GenerateContentBody, canonicalThinking: boolean): string {
  const thinkingConfig = canonicalThinking ? undefined : body.generationConfig?.thinkingConfig;
  const gemini = {
    ...(thinkingConfig && { generationConfig: { thinkingConfig } }),
    ...(body.safetySettings && { safetySettings: body.safetySettings }),
  };
  return Object.keys(gemini).length > 0 ? JSON.stringify({ gemini }) : "";
}

/**
 * A validated generateContent body in the gateway's canonical form. Gemini-only settings reach
 * Gemini models and are dropped for others (sampling hints and filters no other vendor has).
 */
export function toCanonicalGemini(
  body: GenerateContentBody,
  model: string,
  caller: Caller,
  stream: boolean,
): ChatRequest {
  const config = body.generationConfig;
  const thinking = toThinking(config);
  const { toolChoice, tools } = toToolChoice(body, toTools(body));
  return {
    caller,
    model,
    messages: toMessages(body),
    tools,
    toolChoice,
    temperature: config?.temperature,
    topP: config?.topP,
    maxTokens: config?.maxOutputTokens,
    n: config?.candidateCount,
    stop: config?.stopSequences ?? [],
    seed: config?.seed,
    responseFormat: toResponseFormat(config),
    stream,
    // Gemini answers always carry usageMetadata, so the router's usage chunk is always wanted.
    includeUsage: stream,
    presencePenalty: config?.presencePenalty,
    frequencyPenalty: config?.frequencyPenalty,
    topK: config?.topK,
    ...thinking,
    extraJson: extraJsonOf(body, thinking !== undefined),
    anthropicBeta: [],
    anthropicExtraJson: "",
  };
}
