import type { CatalogueModel } from "@gateway/catalogue";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";

/**
 * The real differences between vendors that share OpenAI's protocol, as data: adding a
 * compatible vendor is a new row here, not a new code path.
 */
export interface VendorProfile {
  // OpenAI deprecated max_tokens; its reasoning models reject it.
  maxTokensField: "max_tokens" | "max_completion_tokens";
  // Whether assistant messages may carry reasoning_content back (DeepSeek and Kimi need it in tool loops).
  acceptsReasoningContent: boolean;
  // Whether user content may carry OpenAI's `file` parts (PDFs).
  acceptsFileParts: boolean;
  // Sampling parameters the vendor's reasoning models reject.
  reasoningModelDrops: ReadonlyArray<keyof ChatRequest>;
  // Extra body fields the vendor needs for a request.
  extraBody?: (request: ChatRequest, model: CatalogueModel) => Record<string, unknown>;
}

const openAIReasoningDrops = ["temperature", "topP", "presencePenalty", "frequencyPenalty"] as const;

export const vendorProfiles: Record<string, VendorProfile> = {
  openai: {
    maxTokensField: "max_completion_tokens",
    acceptsReasoningContent: false,
    acceptsFileParts: true,
    reasoningModelDrops: openAIReasoningDrops,
  },
  // https://docs.x.ai: reasoning models reject penalties and stop.
  xai: {
    maxTokensField: "max_tokens",
    acceptsReasoningContent: true,
    acceptsFileParts: false,
    reasoningModelDrops: ["presencePenalty", "frequencyPenalty", "stop"],
  },
  // https://api-docs.deepseek.com/guides/reasoning_model: sampling parameters are ignored in thinking mode.
  deepseek: {
    maxTokensField: "max_tokens",
    acceptsReasoningContent: true,
    acceptsFileParts: false,
    reasoningModelDrops: ["temperature", "topP", "presencePenalty", "frequencyPenalty"],
    // V4 thinks by default; a retired id (deepseek-chat, deepseek-reasoner) stood for one mode.
    extraBody: (_request, model) => {
      const thinking = model.servedFor?.thinking;
      return thinking ? { thinking: { type: thinking } } : {};
    },
  },
  // DashScope rejects non-streaming calls with thinking on, and open Qwen3 models default to it.
  qwen: {
    maxTokensField: "max_tokens",
    acceptsReasoningContent: true,
    acceptsFileParts: false,
    reasoningModelDrops: [],
    extraBody: (request) => (request.stream ? {} : { enable_thinking: false }),
  },
  moonshot: {
    maxTokensField: "max_tokens",
    acceptsReasoningContent: true,
    acceptsFileParts: false,
    reasoningModelDrops: [],
  },
};
