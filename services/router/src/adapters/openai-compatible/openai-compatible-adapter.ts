import { startPiece, timePiece } from "@gateway/platform";
import type { ChatChunk, ChatCompletion } from "@gateway/proto/router/v1/chat";
import { parseStreamPayload } from "../../vendor-http/parse-vendor-json.js";
import { postEventStream, postJson } from "../../vendor-http/vendor-client.js";
import type { AdapterCall, ChatAdapter } from "../chat-adapter.js";
import { fromOpenAIChunk, fromOpenAICompletion } from "./from-openai-response.js";
import { toOpenAIRequest } from "./to-openai-request.js";
import { vendorProfiles } from "./vendor-profiles.js";

function vendorRequest({ request, model, channel, signal, timeouts }: AdapterCall) {
  const profile = vendorProfiles[channel.vendorEntry.profile ?? "openai"]!;
  return {
    url: `${channel.baseUrl}/chat/completions`,
    headers: { authorization: `Bearer ${channel.key.secret}` },
    body: toOpenAIRequest(request, model, profile),
    signal,
    timeouts,
  };
}

/** The adapter OpenAI, xAI, DeepSeek, Qwen (DashScope compatible mode) and Kimi share. */
export const openAICompatibleAdapter: ChatAdapter = {
  async complete(call: AdapterCall): Promise<ChatCompletion> {
    const translating = startPiece("translation");
    const request = vendorRequest(call);
    translating?.();
    const answer = await timePiece("vendor", () => postJson(request));
    const reading = startPiece("translation");
    const completion = fromOpenAICompletion(answer);
    reading?.();
    return completion;
  },

  async *stream(call: AdapterCall): AsyncIterable<ChatChunk> {
    for await (const event of postEventStream(vendorRequest(call))) {
      if (event.data === "[DONE]") return;
      const payload = parseStreamPayload(event.data);
      yield fromOpenAIChunk(payload);
    }
  },
};
