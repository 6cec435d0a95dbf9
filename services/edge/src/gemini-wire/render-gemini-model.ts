import type { Model } from "@gateway/proto/router/v1/router";

// Gemini's Model resource for the gateway's models: what generateContent clients choose by.
// https://ai.google.dev/api/models#Model

/** The Gemini methods each gateway endpoint stands for; models serving neither are not listed. */
function methodsOf(model: Model): string[] {
  const methods: string[] = [];
  if (model.endpoints.includes("/v1/chat/completions")) {
    methods.push("generateContent", "streamGenerateContent", "countTokens");
  }
  if (model.endpoints.includes("/v1/embeddings")) methods.push("embedContent", "batchEmbedContents");
  return methods;
}

export const servesGeminiMethods = (model: Model) => methodsOf(model).length > 0;

export const renderGeminiModel = (model: Model) => ({
  name: `models/${model.id}`,
  baseModelId: model.id,
  displayName: model.id,
  inputTokenLimit: model.contextWindow,
  ...(model.maxOutputTokens !== undefined && { outputTokenLimit: model.maxOutputTokens }),
  supportedGenerationMethods: methodsOf(model),
});
