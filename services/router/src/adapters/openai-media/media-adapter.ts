import type { Channel } from "@gateway/catalogue";
import { serverError } from "@gateway/platform";
import type { TranscriptionRequest } from "@gateway/proto/router/v1/audio";
import type { Usage } from "@gateway/proto/router/v1/chat";
import type { EditImagesRequest, GenerateImagesRequest } from "@gateway/proto/router/v1/images";
import type { AdapterCall } from "../chat-adapter.js";
import { dashScopeImages } from "../dashscope/dashscope-images.js";
import { geminiImages } from "../gemini/gemini-images.js";
import { openAIMediaAdapter } from "./openai-media-adapter.js";

export interface VendorImage {
  // Always base64: the gateway asks for it, and stores it itself when the client wants a URL.
  b64Json: string;
  revisedPrompt: string | undefined;
}

export interface VendorImages {
  created: number;
  images: VendorImage[];
  // The tokens the vendor counted, where it bills images by token (OpenAI's GPT image models).
  usage?: Usage;
}

/** The vendor's transcript as sent: JSON text or plain text, with its content type. */
export interface VendorTranscript {
  text: string;
  contentType: string;
}

/** Speaks one vendor's image and audio APIs. */
export interface MediaAdapter {
  generateImages(call: AdapterCall<GenerateImagesRequest>): Promise<VendorImages>;
  editImages(call: AdapterCall<EditImagesRequest>): Promise<VendorImages>;
  transcribe(call: AdapterCall<TranscriptionRequest>): Promise<VendorTranscript>;
}

/**
 * OpenAI's protocol has image and audio APIs; Gemini's has Imagen's image generation; Alibaba's
 * images are DashScope's own asynchronous API beside its OpenAI-compatible mode.
 */
export function mediaAdapterFor(channel: Channel): MediaAdapter {
  if (channel.vendorEntry.profile === "qwen") return dashScopeImages;
  if (channel.vendorEntry.protocol === "openai-compatible") return openAIMediaAdapter;
  if (channel.vendorEntry.protocol === "gemini") return geminiImages;
  throw serverError(`No media adapter speaks ${channel.vendorEntry.protocol}.`);
}
