import { z } from "zod";

// Gemini's generateContent request as the gateway builds it, and the parts of its answer we
// read, checked at the boundary. https://ai.google.dev/api/generate-content

export interface GeminiInlineData {
  mimeType: string;
  // Base64 of the bytes.
  data: string;
}

// thoughtSignature: opaque, given by Gemini on a model part and sent back on the same part.
// https://ai.google.dev/gemini-api/docs/thought-signatures
export type GeminiPart =
  | { text: string; thoughtSignature?: string }
  | { inlineData: GeminiInlineData }
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown> } };

export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export type GeminiFunctionCallingMode = "AUTO" | "ANY" | "NONE";

export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  candidateCount?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: "application/json";
  responseJsonSchema?: unknown;
  topK?: number;
  thinkingConfig?: GeminiThinkingConfig;
}

// https://ai.google.dev/gemini-api/docs/thinking
export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  // Gemini 3.x: minimal, low, medium or high, in place of a budget (a request may not carry both).
  thinkingLevel?: string;
  includeThoughts?: boolean;
}

/**
 * What a Gemini-format client set that only Gemini understands, carried in the canonical
 * request's pass-through JSON under `gemini` and sent as written to Gemini models alone.
 */
export interface GeminiNativeFields {
  generationConfig?: Pick<GeminiGenerationConfig, "thinkingConfig">;
  safetySettings?: Record<string, unknown>[];
}

export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: GeminiFunctionCallingMode; allowedFunctionNames?: string[] } };
  generationConfig?: GeminiGenerationConfig;
  safetySettings?: Record<string, unknown>[];
}

const tokenCount = z.number().int().nonnegative();

const usageMetadata = z
  .object({
    promptTokenCount: tokenCount.default(0),
    candidatesTokenCount: tokenCount.default(0),
    totalTokenCount: tokenCount.nullish(),
    thoughtsTokenCount: tokenCount.nullish(),
    cachedContentTokenCount: tokenCount.nullish(),
    toolUsePromptTokenCount: tokenCount.nullish(),
  })
  .loose();

const part = z
  .object({
    text: z.string().nullish(),
    // Marks thinking text (sent only when thoughts are asked for).
    thought: z.boolean().nullish(),
    thoughtSignature: z.string().nullish(),
    functionCall: z
      .object({ name: z.string(), args: z.record(z.string(), z.unknown()).nullish(), id: z.string().nullish() })
      .loose()
      .nullish(),
  })
  .loose();

const candidate = z
  .object({
    index: z.number().int().nullish(),
    // Absent or without parts when nothing was generated (a block, or MAX_TOKENS at once).
    content: z
      .object({ role: z.string().nullish(), parts: z.array(part).nullish() })
      .loose()
      .nullish(),
    finishReason: z.string().nullish(),
  })
  .loose();

export const geminiResponseSchema = z
  .object({
    candidates: z.array(candidate).nullish(),
    // Sent (on the first chunk only, when streaming) when the prompt itself was blocked.
    promptFeedback: z.object({ blockReason: z.string().nullish() }).loose().nullish(),
    usageMetadata: usageMetadata.nullish(),
    modelVersion: z.string().nullish(),
    responseId: z.string().nullish(),
  })
  .loose();

export const countTokensResponseSchema = z.object({ totalTokens: tokenCount.default(0) }).loose();

export type GeminiUsage = z.infer<typeof usageMetadata>;
export type GeminiCandidate = z.infer<typeof candidate>;
export type GeminiResponse = z.infer<typeof geminiResponseSchema>;
