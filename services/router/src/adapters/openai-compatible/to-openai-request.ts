import type { CatalogueModel } from "@gateway/catalogue";
import { invalidRequest } from "@gateway/platform";
import type { ChatRequest, ContentPart, Document, Message, ToolChoice } from "@gateway/proto/router/v1/chat";
import { effortWithin, reasoningEffortOf } from "../thinking-budget.js";
import type { VendorProfile } from "./vendor-profiles.js";

/** A text document is its text; a PDF goes as OpenAI's file part where the vendor takes one. */
function documentPart(document: Document, profile: VendorProfile): Record<string, unknown> {
  if (document.sourceType === "text") return { type: "text", text: document.data };
  if (document.sourceType === "base64" && profile.acceptsFileParts) {
    const fileData = `data:${document.mediaType ?? "application/pdf"};base64,${document.data}`;
    return { type: "file", file: { file_data: fileData, filename: document.title ?? "document.pdf" } };
  }
  throw invalidRequest(
    "This model does not read PDF documents; send the document's text instead.",
    "messages",
    "unsupported_value",
  );
}

function toPart(part: ContentPart, profile: VendorProfile): Record<string, unknown>[] {
  if (part.imageUrl) {
    const { url, detail } = part.imageUrl;
    return [{ type: "image_url", image_url: { url, ...(detail && { detail }) } }];
  }
  if (part.document) return [documentPart(part.document, profile)];
  // Claude's thinking blocks mean nothing to other vendors; their text travels as reasoning_content.
  if (part.thinking) return [];
  return [{ type: "text", text: part.text ?? "" }];
}

function toContent(message: Message, profile: VendorProfile): unknown {
  if (message.text !== undefined) return message.text;
  const parts = message.parts.flatMap((part) => toPart(part, profile));
  return parts.length === 0 ? null : parts;
}

function toMessage(message: Message, profile: VendorProfile): Record<string, unknown> {
  const wire: Record<string, unknown> = { role: message.role, content: toContent(message, profile) };
  if (message.name !== undefined) wire.name = message.name;
  if (message.toolCallId !== undefined) wire.tool_call_id = message.toolCallId;
  if (message.toolCalls.length > 0) {
    wire.tool_calls = message.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  if (message.reasoningContent !== undefined && profile.acceptsReasoningContent) {
    wire.reasoning_content = message.reasoningContent;
  }
  return wire;
}

function toToolChoice(choice: ToolChoice): unknown {
  return choice.mode === "function" ? { type: "function", function: { name: choice.functionName } } : choice.mode;
}

// The catalogue's names for the sampling parameters a model refuses, as canonical request fields.
const refusable = { temperature: "temperature", top_p: "topP" } as const;

/**
 * Fields that a vendor's reasoning models reject, and those this model refuses (Kimi K3 takes
 * temperature 1 only), are left out rather than sent to fail.
 */
function dropped(model: CatalogueModel, profile: VendorProfile): Set<string> {
  const drops = new Set<string>(model.capabilities.includes("reasoning") ? profile.reasoningModelDrops : []);
  for (const name of model.refuses ?? []) if (name in refusable) drops.add(refusable[name as keyof typeof refusable]);
  return drops;
}

/** The effort asked for, moved to one the model takes (GPT-6.2 refuses "none", Grok 4.5 "minimal"). */
function effortOf(request: ChatRequest, model: CatalogueModel): string | undefined {
  const effort = reasoningEffortOf(request);
  return effort === undefined ? undefined : effortWithin(effort, model.reasoning_efforts);
}

/** Maps the canonical request to an OpenAI-protocol body for one vendor. */
export function toOpenAIRequest(request: ChatRequest, model: CatalogueModel, profile: VendorProfile) {
  const skip = dropped(model, profile);
  const keep = <T>(field: keyof ChatRequest, value: T | undefined) => (skip.has(field) ? undefined : value);
  const passedThrough = request.extraJson ? (JSON.parse(request.extraJson) as Record<string, unknown>) : {};
  // What only Gemini understands (set by the Gemini ingress) means nothing to these vendors.
  const { gemini: _geminiOnly, ...extra } = passedThrough;
  const body: Record<string, unknown> = {
    ...extra,
    model: model.id,
    messages: request.messages.map((message) => toMessage(message, profile)),
    temperature: keep("temperature", request.temperature),
    top_p: keep("topP", request.topP),
    [profile.maxTokensField]: request.maxTokens,
    n: request.n,
    stop: request.stop.length > 0 ? keep("stop", request.stop) : undefined,
    seed: request.seed,
    presence_penalty: keep("presencePenalty", request.presencePenalty),
    frequency_penalty: keep("frequencyPenalty", request.frequencyPenalty),
    user: request.user,
    parallel_tool_calls: request.tools.length > 0 ? request.parallelToolCalls : undefined,
    tools:
      request.tools.length > 0
        ? request.tools.map((tool) => ({
            type: "function",
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.parametersJson ? JSON.parse(tool.parametersJson) : undefined,
              strict: tool.strict,
            },
          }))
        : undefined,
    tool_choice: request.toolChoice ? toToolChoice(request.toolChoice) : undefined,
    // Only reasoning models take it; others refuse it (xAI: "does not support parameter reasoningEffort").
    reasoning_effort: model.capabilities.includes("reasoning") ? effortOf(request, model) : undefined,
    response_format: request.responseFormat
      ? {
          type: request.responseFormat.type,
          ...(request.responseFormat.jsonSchemaJson && {
            json_schema: JSON.parse(request.responseFormat.jsonSchemaJson),
          }),
        }
      : undefined,
    stream: request.stream || undefined,
    // Usage is always requested upstream, whatever the client asked, so accounting cannot be skipped.
    stream_options: request.stream ? { include_usage: true } : undefined,
    ...profile.extraBody?.(request, model),
  };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
}
