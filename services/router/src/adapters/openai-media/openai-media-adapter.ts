import { malformedAnswer, parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import { postForText, postJson } from "../../vendor-http/vendor-client.js";
import type { AdapterCall } from "../chat-adapter.js";
import type { MediaAdapter, VendorImages } from "./media-adapter.js";
import { openAIImagesSchema, toOpenAIEdit, toOpenAIGeneration, toOpenAITranscription } from "./openai-media-wire.js";

function post(call: AdapterCall<unknown>, path: string, body: unknown) {
  return {
    url: `${call.channel.baseUrl}${path}`,
    headers: { authorization: `Bearer ${call.channel.key.secret}` },
    body,
    signal: call.signal,
    timeouts: call.timeouts,
  };
}

function fromOpenAIImages(raw: unknown): VendorImages {
  const answer = parseVendorJson(openAIImagesSchema, raw);
  const images = answer.data.map((item) => ({
    b64Json: item.b64_json ?? "",
    revisedPrompt: item.revised_prompt ?? undefined,
  }));
  // We asked for base64; an item without it is an answer we cannot use.
  if (images.some((image) => image.b64Json === "")) throw malformedAnswer();
  const usage = answer.usage;
  if (!usage) return { created: answer.created, images };
  return {
    created: answer.created,
    images,
    usage: {
      promptTokens: usage.input_tokens,
      completionTokens: usage.output_tokens,
      totalTokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
      imageTokens: usage.input_tokens_details?.image_tokens ?? 0,
    },
  };
}

/** OpenAI's /images/generations, /images/edits and /audio/transcriptions. */
export const openAIMediaAdapter: MediaAdapter = {
  async generateImages(call) {
    const body = toOpenAIGeneration(call.request, call.model);
    return fromOpenAIImages(await postJson(post(call, "/images/generations", body)));
  },

  async editImages(call) {
    const form = toOpenAIEdit(call.request, call.model);
    return fromOpenAIImages(await postJson(post(call, "/images/edits", form)));
  },

  transcribe(call) {
    return postForText(post(call, "/audio/transcriptions", toOpenAITranscription(call.request, call.model)));
  },
};
