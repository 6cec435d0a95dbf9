import type { TranscriptionRequest } from "@gateway/proto/router/v1/audio";
import type { ChatRequest, ContentPart, Document, Message, ToolCall } from "@gateway/proto/router/v1/chat";
import type { CompletionRequest } from "@gateway/proto/router/v1/completions";
import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import type { EditImagesRequest, GenerateImagesRequest, UploadedFile } from "@gateway/proto/router/v1/images";

// What the request log keeps of each endpoint's request: what was asked (messages, prompt,
// input) in OpenAI's field names, never file or image bytes.

/** A data URL as its header and size: the log says what was sent without keeping the image. */
export function elideDataUrl(url: string): string {
  const comma = url.indexOf(",");
  if (!url.startsWith("data:") || comma < 0) return url;
  const header = url.slice(0, comma + 1);
  const payload = url.length - comma - 1;
  const size = header.endsWith(";base64,") ? Math.floor((payload * 3) / 4) : payload;
  return `${header}[… ${size} bytes]`;
}

export const toolCallLog = (call: Pick<ToolCall, "id" | "name" | "arguments">) => ({
  id: call.id,
  name: call.name,
  arguments: call.arguments,
});

/** A document's text or URL; base64 data (a PDF) only as its type and size. */
function documentLog(document: Document) {
  const { sourceType, mediaType, data, title } = document;
  const source = sourceType === "base64" ? elideDataUrl(`data:${mediaType};base64,${data}`) : data;
  return { type: "document", source_type: sourceType, title, source };
}

function partLog(part: ContentPart) {
  if (part.imageUrl) {
    return { type: "image_url", image_url: { url: elideDataUrl(part.imageUrl.url), detail: part.imageUrl.detail } };
  }
  if (part.document) return documentLog(part.document);
  if (part.thinking) {
    // Redacted thinking is encrypted: only that there was some is worth keeping.
    return part.thinking.redactedData !== undefined
      ? { type: "redacted_thinking" }
      : { type: "thinking", thinking: part.thinking.thinking };
  }
  return { type: "text", text: part.text ?? "" };
}

function contentOf(message: Message) {
  if (message.text !== undefined) return message.text;
  return message.parts.length > 0 ? message.parts.map(partLog) : null;
}

const messageLog = (message: Message) => ({
  role: message.role,
  name: message.name,
  content: contentOf(message),
  reasoning_content: message.reasoningContent,
  tool_calls: message.toolCalls.length > 0 ? message.toolCalls.map(toolCallLog) : undefined,
  tool_call_id: message.toolCallId,
});

const fileLog = (file: UploadedFile | undefined) =>
  file && { filename: file.filename, content_type: file.contentType, bytes: file.data.length };

export const chatRequestLog = (request: ChatRequest) => ({
  messages: request.messages.map(messageLog),
  tools: request.tools.length > 0 ? request.tools.map((tool) => tool.name) : undefined,
});

export const completionRequestLog = (request: CompletionRequest) => ({ prompt: request.prompts });

export const embeddingRequestLog = (request: EmbeddingRequest) => ({
  input: request.inputs.map((input) => input.text ?? input.tokens?.ids ?? null),
});

export const generateImagesRequestLog = (request: GenerateImagesRequest) => ({
  prompt: request.prompt,
  n: request.n,
  size: request.size,
  quality: request.quality,
  style: request.style,
  aspect_ratio: request.aspectRatio,
});

export const editImagesRequestLog = (request: EditImagesRequest) => ({
  prompt: request.prompt,
  images: request.images.map(fileLog),
  mask: fileLog(request.mask),
  n: request.n,
  size: request.size,
  quality: request.quality,
});

/** The parameters only: the audio itself is never logged. */
export const transcriptionRequestLog = (request: TranscriptionRequest) => ({
  file: fileLog(request.file),
  language: request.language,
  prompt: request.prompt,
  response_format: request.responseFormat,
  temperature: request.temperature,
});

/** Every data URL in a client's JSON as its header and size, whatever field holds it. */
function elideDataUrls(value: unknown): unknown {
  if (typeof value === "string") return elideDataUrl(value);
  if (Array.isArray(value)) return value.map(elideDataUrls);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, elideDataUrls(field)]));
  }
  return value;
}

/** A Responses request relayed as sent: its instructions, input and tools' names, as the client wrote them. */
export const responsesRequestLog = (body: { instructions?: unknown; input?: unknown; tools?: unknown }) => ({
  instructions: body.instructions,
  input: elideDataUrls(body.input),
  tools: Array.isArray(body.tools)
    ? body.tools.map((tool: { name?: unknown; type?: unknown }) => tool?.name ?? tool?.type)
    : undefined,
});
