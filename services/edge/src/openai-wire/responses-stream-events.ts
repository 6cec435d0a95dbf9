import type { ChatChunk, Delta, ThinkingBlock, ToolCall, Usage } from "@gateway/proto/router/v1/chat";
import { CustomToolInputDecoder } from "./custom-tool-input.js";
import {
  calledFunction,
  callItem,
  encryptedContentOf,
  itemIdPrefix,
  messageItem,
  newItemId,
  type OutputItem,
  outputTextPart,
  type RenderedResponse,
  type ResponseBase,
  reasoningItem,
  renderResponse,
  statusOf,
  summaryTextPart,
} from "./render-response.js";
import type { ChatFunction } from "./responses-tools-to-chat.js";

// Chat chunks as the Responses API's typed stream events.
// https://platform.openai.com/docs/api-reference/responses-streaming

export interface ResponseEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

interface OpenMessage {
  kind: "message";
  index: number;
  id: string;
  text: string;
}
interface OpenReasoning {
  kind: "reasoning";
  index: number;
  id: string;
  text: string;
  // Claude's blocks signed so far, and where in `text` the block being streamed began.
  blocks: ThinkingBlock[];
  blockStart: number;
}
interface OpenCall {
  kind: "call";
  called: ChatFunction;
  index: number;
  id: string;
  call: ToolCall;
  chunkIndex: number;
  // A freeform tool's input, decoded from its arguments as they stream.
  input?: CustomToolInputDecoder;
}

/**
 * Turns a chat stream into Responses events: one output item at a time (text first, then
 * each tool call), every event numbered. `finish` and `fail` give the terminal event and
 * the final response.
 */
export class ResponseStreamEvents {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  private open: OpenMessage | OpenReasoning | OpenCall | undefined;
  private finishReason: string | undefined;
  private usage: Usage | undefined;
  private readonly signed: ThinkingBlock[] = [];

  constructor(private readonly base: ResponseBase) {}

  /** Claude's signed and redacted thinking blocks of the items closed so far, for the stored turn. */
  get signedThinking(): readonly ThinkingBlock[] {
    return this.signed;
  }

  private event(type: string, fields: Record<string, unknown>): ResponseEvent {
    return { type, ...fields, sequence_number: this.sequence++ };
  }

  start(): ResponseEvent[] {
    const response = renderResponse(this.base, { status: "in_progress", output: [] });
    return [this.event("response.created", { response }), this.event("response.in_progress", { response })];
  }

  onChunk(chunk: ChatChunk): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (!choice) return events;
    const delta = choice.delta;
    if (delta?.reasoningContent) events.push(...this.reasoning(delta.reasoningContent));
    if (delta) events.push(...this.thinkingSignature(delta));
    if (delta?.content) events.push(...this.text(delta.content));
    for (const fragment of delta?.toolCalls ?? []) {
      if (this.open?.kind !== "call" || this.open.chunkIndex !== fragment.index) {
        events.push(...this.close());
        const call = { id: fragment.id ?? newItemId("fc"), name: fragment.name ?? "", arguments: "" };
        const called = calledFunction(this.base, call.name);
        this.open = {
          kind: "call",
          called,
          index: this.output.length,
          id: newItemId(itemIdPrefix[called.kind]),
          call,
          chunkIndex: fragment.index,
          ...(called.kind === "custom" && { input: new CustomToolInputDecoder() }),
        };
        const item = callItem(called, this.open.id, call, "in_progress");
        events.push(this.event("response.output_item.added", { output_index: this.open.index, item }));
      }
      if (fragment.arguments) events.push(...this.callArguments(this.open, fragment.arguments));
    }
    if (choice.finishReason) this.finishReason = choice.finishReason;
    return events;
  }

  /** A function's arguments stream as they come; a freeform tool's as the text of its input. */
  private callArguments(open: OpenCall, fragment: string): ResponseEvent[] {
    open.call.arguments += fragment;
    const where = { item_id: open.id, output_index: open.index };
    if (open.called.kind === "function") {
      return [this.event("response.function_call_arguments.delta", { ...where, delta: fragment })];
    }
    const delta = open.input?.push(fragment) ?? "";
    // A tool search's arguments have no delta event: its item comes whole when it is done.
    return delta === "" ? [] : [this.event("response.custom_tool_call_input.delta", { ...where, delta })];
  }

  private openReasoning(): ResponseEvent[] {
    const events = this.close();
    const id = newItemId("rs");
    this.open = { kind: "reasoning", index: this.output.length, id, text: "", blocks: [], blockStart: 0 };
    events.push(
      this.event("response.output_item.added", { output_index: this.open.index, item: reasoningItem(id, "") }),
    );
    return events;
  }

  /** Thinking text streams as the summary of a reasoning item, ahead of the message it led to. */
  private reasoning(delta: string): ResponseEvent[] {
    const events = this.open?.kind === "reasoning" ? [] : this.openReasoning();
    const open = this.open as OpenReasoning;
    const where = { item_id: open.id, output_index: open.index, summary_index: 0 };
    if (open.text === "") {
      events.push(this.event("response.reasoning_summary_part.added", { ...where, part: summaryTextPart("") }));
    }
    open.text += delta;
    events.push(this.event("response.reasoning_summary_text.delta", { ...where, delta }));
    return events;
  }

  /** Claude's signature closes the thinking streamed since the last one; a redacted block comes whole. */
  private thinkingSignature(delta: Delta): ResponseEvent[] {
    if (delta.reasoningSignature === undefined && delta.redactedThinking === undefined) return [];
    const events = this.open?.kind === "reasoning" ? [] : this.openReasoning();
    const open = this.open as OpenReasoning;
    if (delta.reasoningSignature !== undefined) {
      open.blocks.push({ thinking: open.text.slice(open.blockStart), signature: delta.reasoningSignature });
      open.blockStart = open.text.length;
    }
    if (delta.redactedThinking !== undefined) open.blocks.push({ thinking: "", redactedData: delta.redactedThinking });
    return events;
  }

  private text(delta: string): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    if (this.open?.kind !== "message") {
      events.push(...this.close());
      this.open = { kind: "message", index: this.output.length, id: newItemId("msg"), text: "" };
      const where = { output_index: this.open.index };
      events.push(
        this.event("response.output_item.added", { ...where, item: messageItem(this.open.id, "", "in_progress") }),
      );
      events.push(
        this.event("response.content_part.added", {
          item_id: this.open.id,
          ...where,
          content_index: 0,
          part: outputTextPart(""),
        }),
      );
    }
    this.open.text += delta;
    events.push(
      this.event("response.output_text.delta", {
        item_id: this.open.id,
        output_index: this.open.index,
        content_index: 0,
        delta,
        logprobs: [],
      }),
    );
    return events;
  }

  /** Ends the open item: its `.done` events, and it joins the output. */
  private close(status: "completed" | "incomplete" = "completed"): ResponseEvent[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    if (open.kind === "reasoning") return this.closeReasoning(open);
    if (open.kind === "message") {
      const where = { item_id: open.id, output_index: open.index, content_index: 0 };
      const item = messageItem(open.id, open.text, status);
      this.output.push(item);
      return [
        this.event("response.output_text.done", { ...where, text: open.text, logprobs: [] }),
        this.event("response.content_part.done", { ...where, part: outputTextPart(open.text) }),
        this.event("response.output_item.done", { output_index: open.index, item }),
      ];
    }
    return this.closeCall(open);
  }

  private closeReasoning(open: OpenReasoning): ResponseEvent[] {
    const where = { item_id: open.id, output_index: open.index, summary_index: 0 };
    const item = reasoningItem(open.id, open.text, encryptedContentOf(this.base, open.blocks));
    this.output.push(item);
    this.signed.push(...open.blocks);
    const summary =
      open.text === ""
        ? []
        : [
            this.event("response.reasoning_summary_text.done", { ...where, text: open.text }),
            this.event("response.reasoning_summary_part.done", { ...where, part: summaryTextPart(open.text) }),
          ];
    return [...summary, this.event("response.output_item.done", { output_index: open.index, item })];
  }

  private closeCall(open: OpenCall): ResponseEvent[] {
    const item = callItem(open.called, open.id, open.call, "completed");
    this.output.push(item);
    const where = { item_id: open.id, output_index: open.index };
    const done = this.event("response.output_item.done", { output_index: open.index, item });
    if (item.type === "custom_tool_call") {
      return [this.event("response.custom_tool_call_input.done", { ...where, input: item.input }), done];
    }
    if (item.type === "tool_search_call") return [done];
    return [
      this.event("response.function_call_arguments.done", {
        ...where,
        name: open.call.name,
        arguments: open.call.arguments,
      }),
      done,
    ];
  }

  /** The stream ended well: the last item's `.done` events and `response.completed` or `.incomplete`. */
  finish(): { events: ResponseEvent[]; response: RenderedResponse } {
    const status = statusOf(this.finishReason);
    const events = this.close(status === "incomplete" ? "incomplete" : "completed");
    const response = renderResponse(this.base, {
      status,
      output: this.output,
      usage: this.usage,
      finishReason: this.finishReason,
    });
    events.push(this.event(status === "incomplete" ? "response.incomplete" : "response.completed", { response }));
    return { events, response };
  }

  /**
   * The stream broke after output: `response.failed`, then an `error` event. That event also
   * carries the error body under `error`, the one thing the openai SDK raises on in a stream.
   */
  fail(error: { code: string; message: string; param: string | null; type: string }): ResponseEvent[] {
    const response = renderResponse(this.base, {
      status: "failed",
      output: this.output,
      usage: this.usage,
      error: { code: error.code, message: error.message },
    });
    const { type, ...fields } = error;
    return [
      this.event("response.failed", { response }),
      this.event("error", { ...fields, error: { ...fields, type } }),
    ];
  }
}
