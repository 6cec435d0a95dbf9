import { splitPieces } from "../../answer.js";
import type { OutputItem } from "./response-output.js";

// The events of a streamed response, in the order and shapes OpenAI sends them
// (https://platform.openai.com/docs/api-reference/responses-streaming); `sequence_number` is
// added as they are written. Each event carries whether it delivers generated text (a delta).

export interface PlannedEvent {
  event: Record<string, unknown> & { type: string };
  delta: boolean;
}

const event = (type: string, fields: Record<string, unknown>, delta = false): PlannedEvent => ({
  event: { type, ...fields },
  delta,
});

function reasoningEvents(item: OutputItem, output_index: number, tokens: string[]): PlannedEvent[] {
  const summary = item.summary as { type: string; text: string }[];
  const added = event("response.output_item.added", { output_index, item: { ...item, summary: [] } });
  const done = event("response.output_item.done", { output_index, item });
  if (summary.length === 0) return [added, done];
  const at = { item_id: item.id, output_index, summary_index: 0 };
  const text = summary[0]!.text;
  return [
    added,
    event("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } }),
    ...tokens.map((delta) => event("response.reasoning_summary_text.delta", { ...at, delta }, true)),
    event("response.reasoning_summary_text.done", { ...at, text }),
    event("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text } }),
    done,
  ];
}

function functionCallEvents(item: OutputItem, output_index: number): PlannedEvent[] {
  const at = { item_id: item.id, output_index };
  const text = item.arguments as string;
  return [
    event("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } }),
    ...splitPieces(text, 3).map((delta) => event("response.function_call_arguments.delta", { ...at, delta }, true)),
    event("response.function_call_arguments.done", { ...at, name: item.name, arguments: text }),
    event("response.output_item.done", { output_index, item }),
  ];
}

function customToolCallEvents(item: OutputItem, output_index: number): PlannedEvent[] {
  const at = { output_index, item_id: item.id };
  const input = item.input as string;
  return [
    event("response.output_item.added", { output_index, item: { ...item, input: "" } }),
    ...splitPieces(input, 3).map((delta) => event("response.custom_tool_call_input.delta", { ...at, delta }, true)),
    event("response.custom_tool_call_input.done", { ...at, input }),
    event("response.output_item.done", { output_index, item }),
  ];
}

function messageEvents(item: OutputItem, output_index: number, tokens: string[]): PlannedEvent[] {
  const at = { item_id: item.id, output_index, content_index: 0 };
  const [part] = item.content as Record<string, unknown>[];
  const opening = { ...item, status: "in_progress", content: [] };
  return [
    event("response.output_item.added", { output_index, item: opening }),
    event("response.content_part.added", { ...at, part: { ...part, text: "" } }),
    ...tokens.map((delta) => event("response.output_text.delta", { ...at, delta, logprobs: [] }, true)),
    event("response.output_text.done", { ...at, text: part!.text, logprobs: [] }),
    event("response.content_part.done", { ...at, part }),
    event("response.output_item.done", { output_index, item }),
  ];
}

/** Every output item's events, in output order; text goes token by token as the answer has it. */
export function outputEvents(items: OutputItem[], tokens: { reasoning: string[]; text: string[] }): PlannedEvent[] {
  return items.flatMap((item, index) => {
    if (item.type === "reasoning") return reasoningEvents(item, index, tokens.reasoning);
    if (item.type === "function_call") return functionCallEvents(item, index);
    if (item.type === "custom_tool_call") return customToolCallEvents(item, index);
    return messageEvents(item, index, tokens.text);
  });
}
