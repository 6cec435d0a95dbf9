// Maps a logged request and answer (OpenAI field names: Chat Completions `messages`, Responses
// `input`/`output`, completions `prompt`, and the log's own compact answer shapes) to the turns
// the log viewer draws. Anything it does not recognise is kept as data rather than dropped.

export type Part =
  | { kind: "text"; text: string }
  | { kind: "image"; url: string }
  | { kind: "toolCall"; id: string; name: string; arguments: string }
  | { kind: "toolResult"; callId: string; text: string }
  | { kind: "data"; value: unknown };

export interface Turn {
  role: string;
  origin: "request" | "answer";
  parts: Part[];
  name?: string;
  finishReason?: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
const stringOr = (value: unknown, fallback = "") => (typeof value === "string" ? value : fallback);

/** A tool call in the log's flat shape ({id, name, arguments}) or OpenAI's ({id, function: {...}}). */
function toolCallPart(call: unknown): Part {
  if (!isObject(call)) return { kind: "data", value: call };
  const fn = isObject(call.function) ? call.function : call;
  return {
    kind: "toolCall",
    id: stringOr(call.id ?? call.call_id),
    name: stringOr(fn.name),
    arguments: text(fn.arguments ?? ""),
  };
}

function imageUrlOf(part: Json): string | undefined {
  const image = part.image_url;
  if (typeof image === "string") return image;
  if (isObject(image) && typeof image.url === "string") return image.url;
  return undefined;
}

/** One content part of a chat message or Responses input item. */
function contentPart(part: unknown): Part {
  if (typeof part === "string") return { kind: "text", text: part };
  if (!isObject(part)) return { kind: "data", value: part };
  if (typeof part.text === "string") return { kind: "text", text: part.text };
  if (typeof part.refusal === "string") return { kind: "text", text: part.refusal };
  const url = imageUrlOf(part);
  return url === undefined ? { kind: "data", value: part } : { kind: "image", url };
}

function contentParts(content: unknown): Part[] {
  if (content === null || content === undefined || content === "") return [];
  return Array.isArray(content) ? content.map(contentPart) : [contentPart(content)];
}

/** A tool's answer reads as text whichever way it was given (a string or text parts). */
function toolResultText(content: unknown): string {
  const parts = contentParts(content);
  return parts.map((part) => (part.kind === "text" ? part.text : text(content))).join("\n");
}

function chatMessageTurn(message: unknown, origin: Turn["origin"]): Turn {
  if (!isObject(message)) return { role: "unknown", origin, parts: [{ kind: "data", value: message }] };
  const role = stringOr(message.role, "unknown");
  const toolCallId = message.tool_call_id;
  const parts: Part[] =
    typeof toolCallId === "string" && toolCallId !== ""
      ? [{ kind: "toolResult", callId: toolCallId, text: toolResultText(message.content) }]
      : contentParts(message.content);
  if (Array.isArray(message.tool_calls)) parts.push(...message.tool_calls.map(toolCallPart));
  const turn: Turn = { role, origin, parts };
  if (typeof message.name === "string" && message.name !== "") turn.name = message.name;
  return turn;
}

/**
 * A chat message's turns: its thinking (`reasoning_content`, logged for reasoners) as a turn of
 * its own ahead of it, as a Responses reasoning item is.
 */
function chatMessageTurns(message: unknown, origin: Turn["origin"]): Turn[] {
  const turn = chatMessageTurn(message, origin);
  const reasoning = isObject(message) ? message.reasoning_content : undefined;
  if (typeof reasoning !== "string" || reasoning === "") return [turn];
  return [{ role: "reasoning", origin, parts: [{ kind: "text", text: reasoning }] }, turn];
}

/** One item of a Responses `input` or `output` list. */
function responsesItemTurn(item: unknown, origin: Turn["origin"]): Turn {
  if (typeof item === "string") return { role: "user", origin, parts: [{ kind: "text", text: item }] };
  if (!isObject(item)) return { role: "user", origin, parts: [{ kind: "data", value: item }] };
  switch (item.type) {
    case "function_call":
      return { role: "assistant", origin, parts: [toolCallPart(item)] };
    case "function_call_output":
      return {
        role: "tool",
        origin,
        parts: [{ kind: "toolResult", callId: stringOr(item.call_id), text: toolResultText(item.output) }],
      };
    case "reasoning": {
      const summary = Array.isArray(item.summary) ? item.summary.map(contentPart) : [];
      return { role: "reasoning", origin, parts: summary.length > 0 ? summary : [{ kind: "data", value: item }] };
    }
    default:
      if (typeof item.role === "string") return chatMessageTurn(item, origin);
      return { role: origin === "answer" ? "assistant" : "user", origin, parts: [{ kind: "data", value: item }] };
  }
}

const userText = (value: unknown): Turn => ({ role: "user", origin: "request", parts: [contentPart(value)] });

/** The turns of what the client sent. */
export function requestTurns(request: unknown): Turn[] {
  if (request === null || request === undefined) return [];
  if (!isObject(request))
    return [{ role: "request", origin: "request", parts: [{ kind: "text", text: text(request) }] }];
  const turns: Turn[] = [];
  if (typeof request.instructions === "string") {
    turns.push({ role: "system", origin: "request", parts: [{ kind: "text", text: request.instructions }] });
  }
  if (Array.isArray(request.messages)) {
    turns.push(...request.messages.flatMap((message) => chatMessageTurns(message, "request")));
  } else if (Array.isArray(request.input)) {
    turns.push(...request.input.map((item) => responsesItemTurn(item, "request")));
  } else if (request.input !== undefined) {
    turns.push(userText(request.input));
  } else if (Array.isArray(request.prompt)) {
    turns.push(...request.prompt.map(userText));
  } else if (request.prompt !== undefined) {
    turns.push(userText(request.prompt));
  } else {
    turns.push({ role: "request", origin: "request", parts: [{ kind: "data", value: request }] });
  }
  return turns;
}

/** A choice in the log's compact shape ({content, reasoning_content, tool_calls}) or OpenAI's ({message} / {text}). */
function choiceTurns(choice: unknown): Turn[] {
  if (!isObject(choice)) return [{ role: "assistant", origin: "answer", parts: [{ kind: "data", value: choice }] }];
  const message = isObject(choice.message)
    ? { role: "assistant", ...choice.message }
    : {
        role: "assistant",
        content: choice.content ?? choice.text,
        reasoning_content: choice.reasoning_content,
        tool_calls: choice.tool_calls,
      };
  const turns = chatMessageTurns(message, "answer");
  if (typeof choice.finish_reason === "string") turns.at(-1)!.finishReason = choice.finish_reason;
  return turns;
}

/** The turns of what the gateway answered. */
export function answerTurns(answer: unknown): Turn[] {
  if (answer === null || answer === undefined) return [];
  if (!isObject(answer))
    return [{ role: "assistant", origin: "answer", parts: [{ kind: "text", text: text(answer) }] }];
  if (Array.isArray(answer.choices)) return answer.choices.flatMap(choiceTurns);
  if (Array.isArray(answer.output)) return answer.output.map((item) => responsesItemTurn(item, "answer"));
  if (typeof answer.text === "string")
    return [{ role: "assistant", origin: "answer", parts: [{ kind: "text", text: answer.text }] }];
  return [{ role: "assistant", origin: "answer", parts: [{ kind: "data", value: answer }] }];
}

/** Names of the tools a chat request offered (the log keeps names only). */
export function toolsOffered(request: unknown): string[] {
  if (!isObject(request) || !Array.isArray(request.tools)) return [];
  return request.tools.map((tool) => {
    if (!isObject(tool)) return text(tool);
    const fn = isObject(tool.function) ? tool.function : tool;
    return stringOr(fn.name, stringOr(tool.type, text(tool)));
  });
}
