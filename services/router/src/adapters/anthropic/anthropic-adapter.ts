import { serviceUnavailable } from "@gateway/platform";
import type { ChatChunk, ChatCompletion, ChatRequest } from "@gateway/proto/router/v1/chat";
import { parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import { postEventStream, postJson } from "../../vendor-http/vendor-client.js";
import type { AdapterCall, ChatAdapter } from "../chat-adapter.js";
import { anthropicTokenCountSchema, anthropicVersion } from "./anthropic-wire-types.js";
import { AnthropicStreamMapper, fromAnthropicMessage, parseStreamEvent } from "./from-anthropic-response.js";
import { toAnthropicRequest } from "./to-anthropic-request.js";

/** What a count_tokens request leaves out of a Messages body: the fields that only shape the answer. */
const answerOnlyFields = ["max_tokens", "stream", "temperature", "top_p", "top_k", "stop_sequences", "metadata"];

function countTokensBody(call: AdapterCall): Record<string, unknown> {
  const body = toAnthropicRequest(call.request, call.model);
  for (const field of answerOnlyFields) delete body[field];
  return body;
}

// Claude says how many output tokens were thinking only when asked; every ingress reports them.
const thinkingTokenCount = "thinking-token-count-2026-05-13";

/** The client's betas, plus the thinking-token count when the model is to think. */
function betasFor(request: ChatRequest, body: Record<string, unknown>): string[] {
  const thinking = body.thinking as { type?: string } | undefined;
  const thinks = thinking !== undefined && thinking.type !== "disabled";
  return thinks && !request.anthropicBeta.includes(thinkingTokenCount)
    ? [...request.anthropicBeta, thinkingTokenCount]
    : request.anthropicBeta;
}

function vendorRequest({ request, model, channel, signal, timeouts }: AdapterCall, path = "/v1/messages") {
  const body = toAnthropicRequest(request, model);
  const betas = betasFor(request, body);
  return {
    url: `${channel.baseUrl}${path}`,
    headers: {
      "x-api-key": channel.key.secret,
      "anthropic-version": anthropicVersion,
      ...(betas.length > 0 && { "anthropic-beta": betas.join(",") }),
    },
    body,
    signal,
    timeouts,
  };
}

/** Anthropic's Messages API. */
export const anthropicAdapter: ChatAdapter = {
  async complete(call: AdapterCall): Promise<ChatCompletion> {
    return fromAnthropicMessage(await postJson(vendorRequest(call)));
  },

  async *stream(call: AdapterCall): AsyncIterable<ChatChunk> {
    const mapper = new AnthropicStreamMapper();
    for await (const message of postEventStream(vendorRequest(call))) {
      const event = parseStreamEvent(message.data);
      if (event) yield* mapper.map(event);
      if (mapper.finished) return;
    }
    // The connection closed cleanly but before message_stop: the answer is incomplete.
    throw serviceUnavailable("The model provider ended the stream early. Please retry.");
  },

  async countTokens(call: AdapterCall): Promise<number> {
    const request = { ...vendorRequest(call, "/v1/messages/count_tokens"), body: countTokensBody(call) };
    return parseVendorJson(anthropicTokenCountSchema, await postJson(request)).input_tokens;
  },
};
