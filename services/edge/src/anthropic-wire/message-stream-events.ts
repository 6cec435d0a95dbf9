import type { ChatChunk, Delta, ToolCallDelta, Usage } from "@gateway/proto/router/v1/chat";
import { messageId, renderUsage, stopReasonOf } from "./render-message.js";

// Canonical chunks as Anthropic's named stream events.
// https://docs.anthropic.com/en/docs/build-with-claude/streaming

export interface MessageEvent {
  type: string;
  [field: string]: unknown;
}

interface OpenBlock {
  kind: "text" | "thinking" | "tool_use";
  index: number;
  // A thinking block is closed by its signature: more thinking after it opens a new block.
  signed?: boolean;
}

/**
 * Turns a canonical chat stream into Anthropic's events: one content block open at a time
 * (thinking, text or tool_use, in the order the deltas come), each closed before the next opens.
 * A tool call's argument pieces become input_json_delta events of its block. Stop reason and
 * usage arrive in separate chunks, so message_delta waits for the end of the stream.
 */
export class MessageStreamEvents {
  private open: OpenBlock | undefined;
  private blocks = 0;
  private readonly blockOfToolCall = new Map<number, number>();
  private finishReason: string | undefined;
  private stopSequence: string | undefined;
  private usage: Usage | undefined;

  constructor(private readonly requestedModel: string) {}

  start(first: ChatChunk | undefined): MessageEvent[] {
    const message = {
      id: messageId(first?.id ?? ""),
      type: "message",
      role: "assistant",
      model: first?.model || this.requestedModel,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // The vendor's counts come at the end of the stream, in message_delta.
      usage: renderUsage(undefined),
    };
    return [{ type: "message_start", message }, { type: "ping" }];
  }

  onChunk(chunk: ChatChunk): MessageEvent[] {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (!choice) return [];
    if (choice.finishReason) this.finishReason = choice.finishReason;
    if (choice.stopSequence !== undefined) this.stopSequence = choice.stopSequence;
    return choice.delta ? this.deltaEvents(choice.delta) : [];
  }

  finish(): MessageEvent[] {
    return [
      ...this.closeOpen(),
      {
        type: "message_delta",
        delta: {
          stop_reason: stopReasonOf(this.finishReason, this.stopSequence),
          stop_sequence: this.stopSequence ?? null,
        },
        usage: renderUsage(this.usage),
      },
      { type: "message_stop" },
    ];
  }

  private deltaEvents(delta: Delta): MessageEvent[] {
    const events: MessageEvent[] = [];
    if (delta.reasoningContent) {
      events.push(...this.into("thinking", { type: "thinking", thinking: "", signature: "" }));
      events.push(this.blockDelta({ type: "thinking_delta", thinking: delta.reasoningContent }));
    }
    if (delta.reasoningSignature) {
      events.push(...this.into("thinking", { type: "thinking", thinking: "", signature: "" }));
      events.push(this.blockDelta({ type: "signature_delta", signature: delta.reasoningSignature }));
      this.open!.signed = true;
    }
    if (delta.redactedThinking !== undefined) {
      events.push(...this.closeOpen());
      const index = this.blocks++;
      events.push(
        {
          type: "content_block_start",
          index,
          content_block: { type: "redacted_thinking", data: delta.redactedThinking },
        },
        { type: "content_block_stop", index },
      );
    }
    if (delta.content) {
      events.push(...this.into("text", { type: "text", text: "" }));
      events.push(this.blockDelta({ type: "text_delta", text: delta.content }));
    }
    for (const call of delta.toolCalls) events.push(...this.toolCallEvents(call));
    return events;
  }

  private toolCallEvents(call: ToolCallDelta): MessageEvent[] {
    const events: MessageEvent[] = [];
    let index = this.blockOfToolCall.get(call.index);
    if (index === undefined) {
      events.push(...this.closeOpen());
      index = this.blocks++;
      this.blockOfToolCall.set(call.index, index);
      this.open = { kind: "tool_use", index };
      const block = { type: "tool_use", id: call.id ?? `toolu_${index}`, name: call.name ?? "", input: {} };
      events.push({ type: "content_block_start", index, content_block: block });
    }
    if (call.arguments) {
      events.push({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: call.arguments },
      });
    }
    return events;
  }

  /** Makes sure a block of this kind is open, closing another one first. */
  private into(kind: "text" | "thinking", contentBlock: Record<string, unknown>): MessageEvent[] {
    if (this.open?.kind === kind && !this.open.signed) return [];
    const events = this.closeOpen();
    const index = this.blocks++;
    this.open = { kind, index };
    events.push({ type: "content_block_start", index, content_block: contentBlock });
    return events;
  }

  private blockDelta(delta: Record<string, unknown>): MessageEvent {
    return { type: "content_block_delta", index: this.open!.index, delta };
  }

  private closeOpen(): MessageEvent[] {
    if (!this.open) return [];
    const { index } = this.open;
    this.open = undefined;
    return [{ type: "content_block_stop", index }];
  }
}
