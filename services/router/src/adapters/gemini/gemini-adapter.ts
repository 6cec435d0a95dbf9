import type { ChatChunk, ChatCompletion, ChatRequest } from "@gateway/proto/router/v1/chat";
import { FetchBudget } from "../../vendor-http/fetch-budget.js";
import { fetchImage, imageFromDataUrl } from "../../vendor-http/fetch-image.js";
import { parseStreamPayload, parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import { postEventStream, postJson } from "../../vendor-http/vendor-client.js";
import type { ImageFetchPolicy } from "../adapter-registry.js";
import type { AdapterCall, ChatAdapter } from "../chat-adapter.js";
import { fromGeminiResponse, GeminiStreamMapper } from "./from-gemini-response.js";
import { countTokensResponseSchema, type GeminiRequest } from "./gemini-wire-types.js";
import { toGeminiRequest } from "./to-gemini-request.js";

/** Google's Gemini API (generativelanguage.googleapis.com, v1beta), which takes images only inline. */
export function createGeminiAdapter(imageFetch: ImageFetchPolicy): ChatAdapter {
  // One body per request, so a retry or failover does not download its images again.
  const bodies = new WeakMap<ChatRequest, Promise<GeminiRequest>>();

  function bodyFor({ request, model, signal }: AdapterCall): Promise<GeminiRequest> {
    let body = bodies.get(request);
    if (!body) {
      const budget = new FetchBudget(imageFetch.maxRequestBytes);
      body = toGeminiRequest(
        request,
        async (url) =>
          url.startsWith("data:") ? imageFromDataUrl(url, imageFetch) : fetchImage(url, imageFetch, budget, signal),
        model.reasoning_efforts,
      );
      bodies.set(request, body);
    }
    return body;
  }

  async function vendorRequest(
    call: AdapterCall,
    method: "generateContent" | "streamGenerateContent?alt=sse" | "countTokens",
    body?: unknown,
  ) {
    const { model, channel, signal, timeouts } = call;
    return {
      url: `${channel.baseUrl}/v1beta/models/${encodeURIComponent(model.id)}:${method}`,
      headers: { "x-goog-api-key": channel.key.secret },
      body: body ?? (await bodyFor(call)),
      signal,
      timeouts,
    };
  }

  return {
    async complete(call: AdapterCall): Promise<ChatCompletion> {
      return fromGeminiResponse(await postJson(await vendorRequest(call, "generateContent")));
    },

    async *stream(call: AdapterCall): AsyncIterable<ChatChunk> {
      const mapper = new GeminiStreamMapper();
      // No [DONE]: Gemini's stream simply ends.
      for await (const event of postEventStream(await vendorRequest(call, "streamGenerateContent?alt=sse"))) {
        const payload = parseStreamPayload(event.data);
        const chunk = mapper.map(payload);
        if (chunk) yield chunk;
      }
      const usage = mapper.finish();
      if (usage) yield usage;
    },

    /** Counts the whole request (system instruction and tools too) the way generateContent will bill it. */
    async countTokens(call: AdapterCall): Promise<number> {
      const generateContentRequest = { model: `models/${call.model.id}`, ...(await bodyFor(call)) };
      const raw = await postJson(await vendorRequest(call, "countTokens", { generateContentRequest }));
      return parseVendorJson(countTokensResponseSchema, raw).totalTokens;
    },
  };
}
