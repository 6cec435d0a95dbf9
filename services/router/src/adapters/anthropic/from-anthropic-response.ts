import { serviceUnavailable } from "@gateway/platform";
import type { ChatChunk, ChatCompletion, Delta, ThinkingBlock, ToolCall, Usage } from "@gateway/proto/router/v1/chat";
import { malformedStream, parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import {
  type AnthropicMessage,
  type AnthropicStreamEvent,
  type AnthropicUsage,
  anthropicMessageSchema,
  anthropicStreamEventSchema,
  knownStreamEvents,
} from "./anthropic-wire-types.js";

const stopReasons = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
  model_context_window_exceeded: "length",
  // Server tools paused a long turn; the client sees an ordinary end (gateway choice).
  pause_turn: "stop",
} as const satisfies Record<string, "stop" | "length" | "tool_calls" | "content_filter">;

/**
 * Anthropic's stop_reason as OpenAI's finish_reason; a reason added after this table is read as "stop".
 * https://docs.anthropic.com/en/api/handling-stop-reasons
 */
export function toFinishReason(stopReason: string | null | undefined): string {
  return stopReason && Object.hasOwn(stopReasons, stopReason)
    ? stopReasons[stopReason as keyof typeof stopReasons]
    : "stop";
}

/** Input tokens are split three ways by Anthropic; OpenAI's prompt_tokens is their sum. */
export function toUsage(usage: AnthropicUsage, outputTokens = usage.output_tokens ?? 0): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + cacheRead;
  return {
    promptTokens,
    completionTokens: outputTokens,
    totalTokens: promptTokens + outputTokens,
    cachedTokens: usage.cache_read_input_tokens ?? undefined,
    cacheCreationTokens: usage.cache_creation_input_tokens ?? undefined,
    reasoningTokens: usage.output_tokens_details?.thinking_tokens ?? undefined,
    speed: usage.speed ?? undefined,
    inferenceGeo: usage.inference_geo ?? undefined,
  };
}

export function fromAnthropicMessage(raw: unknown): ChatCompletion {
  const message: AnthropicMessage = parseVendorJson(anthropicMessageSchema, raw);
  const text: string[] = [];
  const thinking: ThinkingBlock[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") text.push(block.text!);
    else if (block.type === "thinking") thinking.push({ thinking: block.thinking ?? "", signature: block.signature });
    else if (block.type === "redacted_thinking") thinking.push({ thinking: "", redactedData: block.data ?? "" });
    else if (block.type === "tool_use") {
      toolCalls.push({ id: block.id!, name: block.name!, arguments: JSON.stringify(block.input ?? {}) });
    }
  }
  return {
    id: message.id,
    // Anthropic sends no creation time; the router fills it in.
    created: 0,
    model: message.model,
    choices: [
      {
        index: 0,
        finishReason: toFinishReason(message.stop_reason),
        stopSequence: message.stop_sequence ?? undefined,
        message: {
          content: text.length > 0 ? text.join("") : undefined,
          reasoningContent: thinking.length > 0 ? thinking.map((block) => block.thinking).join("") : undefined,
          toolCalls,
          thinkingBlocks: thinking,
        },
      },
    ],
    usage: message.usage ? toUsage(message.usage) : undefined,
  };
}

/** Parses one SSE data payload; undefined for event types this adapter does not know (skipped). */
export function parseStreamEvent(data: string): AnthropicStreamEvent | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    throw malformedStream();
  }
  const type = (payload as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !knownStreamEvents.has(type)) return undefined;
  return parseVendorJson(anthropicStreamEventSchema, payload);
}

/**
 * Turns Anthropic's stream events into canonical chunks. Anthropic numbers content blocks
 * (text, thinking and tool_use together); OpenAI numbers tool calls only, so tool_use blocks are
 * counted as they start and each block index is mapped to its tool-call index.
 *
 * message_start yields nothing: the role rides on the first chunk with content. The router
 * retries a stream that fails before its first chunk, so an overload `error` event right after
 * message_start (common with Anthropic) still fails over instead of breaking a begun answer.
 */
export class AnthropicStreamMapper {
  private id = "";
  private model = "";
  private startUsage: AnthropicUsage = {};
  private outputTokens: number | undefined;
  private finalUsage: AnthropicUsage = {};
  private readonly toolIndexOfBlock = new Map<number, number>();
  private toolCalls = 0;
  private announced = false;
  /** Set by message_stop: a stream that ends without it was cut. */
  finished = false;

  /** The chunks one event stands for (often none). */
  map(event: AnthropicStreamEvent): ChatChunk[] {
    switch (event.type) {
      case "message_start":
        this.id = event.message.id;
        this.model = event.message.model;
        this.startUsage = event.message.usage ?? {};
        return [];
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "tool_use") {
          const index = this.toolCalls++;
          this.toolIndexOfBlock.set(event.index, index);
          return [this.chunk({ toolCalls: [{ index, id: block.id, name: block.name, arguments: "" }] })];
        }
        if (block.type === "text" && block.text) return [this.chunk({ content: block.text })];
        if (block.type === "redacted_thinking") return [this.chunk({ redactedThinking: block.data ?? "" })];
        return [];
      }
      case "content_block_delta":
        return this.mapDelta(event.index, event.delta);
      case "message_delta":
        if (event.usage?.output_tokens != null) this.outputTokens = event.usage.output_tokens;
        this.finalUsage = event.usage ?? {};
        return [this.chunk({}, toFinishReason(event.delta.stop_reason), event.delta.stop_sequence ?? undefined)];
      case "message_stop":
        this.finished = true;
        return this.usageChunk();
      case "error":
        throw serviceUnavailable("The model provider failed while streaming. Please retry.");
      default:
        // ping, content_block_stop: nothing to say.
        return [];
    }
  }

  private mapDelta(blockIndex: number, delta: Extract<AnthropicStreamEvent, { type: "content_block_delta" }>["delta"]) {
    if (delta.type === "text_delta" && delta.text) return [this.chunk({ content: delta.text })];
    if (delta.type === "thinking_delta" && delta.thinking) return [this.chunk({ reasoningContent: delta.thinking })];
    if (delta.type === "signature_delta" && delta.signature) {
      return [this.chunk({ reasoningSignature: delta.signature })];
    }
    if (delta.type === "input_json_delta" && delta.partial_json) {
      const index = this.toolIndexOfBlock.get(blockIndex);
      if (index === undefined) throw malformedStream();
      return [this.chunk({ toolCalls: [{ index, arguments: delta.partial_json }] })];
    }
    return [];
  }

  /**
   * Usage is reported only when message_delta gave the output count; without it the router
   * estimates rather than bill zero output. message_delta may also update the input counts.
   */
  private usageChunk(): ChatChunk[] {
    if (this.outputTokens === undefined) return [];
    const usage = toUsage({ ...this.startUsage, ...definedOnly(this.finalUsage) }, this.outputTokens);
    return [{ id: this.id, created: 0, model: this.model, choices: [], usage }];
  }

  /** One choice's chunk; the first of the stream also says who speaks, as OpenAI's do. */
  private chunk(delta: Partial<Delta>, finishReason?: string, stopSequence?: string): ChatChunk {
    const role = this.announced ? {} : { role: "assistant" };
    this.announced = true;
    const choice = {
      index: 0,
      delta: { ...role, ...delta, toolCalls: delta.toolCalls ?? [] },
      finishReason,
      stopSequence,
    };
    return { id: this.id, created: 0, model: this.model, choices: [choice] };
  }
}

function definedOnly(usage: AnthropicUsage): AnthropicUsage {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null && value !== undefined));
}
