import { int32From, modelId } from "@gateway/platform";
import { z } from "zod";

// Gemini's generateContent request (camelCase, as @google/genai sends it), bounded the way
// Gemini bounds it. Fields the gateway cannot honour for every vendor are refused by name.
// https://ai.google.dev/api/generate-content#request-body

/** Gemini's rule: a letter or underscore first, then letters, digits, `_.:-`, at most 128. */
const functionName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/, "must start with a letter or underscore and use [A-Za-z0-9_.:-], ≤128");

const jsonObject = z.record(z.string(), z.unknown());

const blob = z.object({ mimeType: z.string().min(1), data: z.string().min(1) }).strict();

const fileData = z.object({ mimeType: z.string().optional(), fileUri: z.string().min(1) }).strict();

const functionCall = z.object({ id: z.string().optional(), name: functionName, args: jsonObject.optional() }).strict();

const functionResponse = z
  .object({ id: z.string().optional(), name: functionName, response: jsonObject, willContinue: z.boolean().optional() })
  .strict();

const dataFields = ["text", "inlineData", "fileData", "functionCall", "functionResponse"] as const;

export const partSchema = z
  .object({
    text: z.string().optional(),
    // Marks thinking text in a model turn the client replays.
    thought: z.boolean().optional(),
    thoughtSignature: z.string().optional(),
    inlineData: blob.optional(),
    fileData: fileData.optional(),
    functionCall: functionCall.optional(),
    functionResponse: functionResponse.optional(),
  })
  .strict()
  .refine((part) => dataFields.filter((name) => part[name] !== undefined).length === 1, {
    message: `must set exactly one of ${dataFields.join(", ")}`,
  });

export const contentSchema = z
  .object({
    // Older clients answered functions in a "function" turn; it is a user turn now.
    role: z.enum(["user", "model", "function"]).optional(),
    parts: z.array(partSchema).min(1, "must not be empty"),
  })
  .strict();

const functionDeclaration = z
  .object({
    name: functionName,
    description: z.string().optional(),
    // Gemini's Schema (an OpenAPI subset) or plain JSON Schema; one of them at most.
    parameters: jsonObject.optional(),
    parametersJsonSchema: jsonObject.optional(),
    response: jsonObject.optional(),
    responseJsonSchema: jsonObject.optional(),
  })
  .strict()
  .refine((declaration) => !(declaration.parameters && declaration.parametersJsonSchema), {
    message: "may set parameters or parametersJsonSchema, not both",
  });

// Only function declarations: Google Search, code execution and URL context are Google's own tools.
const tool = z.object({ functionDeclarations: z.array(functionDeclaration).max(128).optional() }).strict();

const toolConfig = z
  .object({
    functionCallingConfig: z
      .object({
        mode: z.enum(["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"]).optional(),
        allowedFunctionNames: z.array(functionName).min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export const thinkingConfigSchema = z
  .object({
    // -1 asks for a dynamic budget, 0 turns thinking off (where the model allows it).
    thinkingBudget: z.number().int().min(-1).max(1_000_000).optional(),
    thinkingLevel: z.enum(["MINIMAL", "LOW", "MEDIUM", "HIGH", "minimal", "low", "medium", "high"]).optional(),
    includeThoughts: z.boolean().optional(),
  })
  .strict();

const generationConfig = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().min(0).max(1).optional(),
    topK: int32From(1).optional(),
    maxOutputTokens: int32From(1).optional(),
    stopSequences: z.array(z.string()).max(5).optional(),
    candidateCount: z.number().int().min(1).max(8).optional(),
    seed: z.number().int().optional(),
    presencePenalty: z.number().min(-2).max(2).optional(),
    frequencyPenalty: z.number().min(-2).max(2).optional(),
    responseMimeType: z.enum(["text/plain", "application/json"]).optional(),
    responseSchema: jsonObject.optional(),
    responseJsonSchema: jsonObject.optional(),
    responseModalities: z.array(z.literal("TEXT")).optional(),
    thinkingConfig: thinkingConfigSchema.optional(),
  })
  .strict()
  .superRefine((config, context) => {
    const schema = config.responseSchema ?? config.responseJsonSchema;
    if (schema && config.responseMimeType !== "application/json") {
      context.addIssue({
        code: "custom",
        path: ["responseMimeType"],
        message: "must be application/json with a schema",
      });
    }
    if (config.responseSchema && config.responseJsonSchema) {
      context.addIssue({ code: "custom", path: ["responseSchema"], message: "cannot be set with responseJsonSchema" });
    }
  });

const safetySetting = z.object({ category: z.string(), threshold: z.string(), method: z.string().optional() }).strict();

export const generateContentSchema = z
  .object({
    // countTokens' generateContentRequest names its model; the path's model is the one served.
    model: modelId.optional(),
    contents: z.array(contentSchema).min(1, "contents is not specified"),
    systemInstruction: z
      .object({ role: z.string().optional(), parts: z.array(partSchema).min(1) })
      .strict()
      .optional(),
    tools: z.array(tool).max(16).optional(),
    toolConfig: toolConfig.optional(),
    generationConfig: generationConfig.optional(),
    // Accepted, as Gemini's filters are the vendor's own: no other vendor has a counterpart.
    safetySettings: z.array(safetySetting).max(16).optional(),
    labels: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** countTokens takes either bare contents or a whole generateContent request. */
export const countTokensSchema = z
  .object({
    contents: z.array(contentSchema).min(1).optional(),
    generateContentRequest: generateContentSchema.optional(),
  })
  .strict()
  .refine((body) => (body.contents === undefined) !== (body.generateContentRequest === undefined), {
    message: "must set exactly one of contents and generateContentRequest",
  });

export type GenerateContentBody = z.infer<typeof generateContentSchema>;
export type ContentBody = z.infer<typeof contentSchema>;
export type PartBody = z.infer<typeof partSchema>;
export type ThinkingConfigBody = z.infer<typeof thinkingConfigSchema>;
