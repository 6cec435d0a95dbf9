import { GatewayError } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { chatRequestSchema } from "./chat-request-schema.js";
import { completionRequestSchema } from "./completion-request-schema.js";
import { embeddingRequestSchema } from "./embedding-request-schema.js";
import { imageEditFieldsSchema, imageGenerationSchema } from "./image-request-schema.js";
import { responsesRequestSchema } from "./responses-request-schema.js";
import { transcriptionFieldsSchema } from "./transcription-request-schema.js";
import { validateBody } from "./validate-body.js";
import { videoGenerationSchema } from "./video-request-schema.js";

function refusedParam(schema: z.ZodType, body: Record<string, unknown>): string | null {
  try {
    validateBody(schema, body);
  } catch (error) {
    if (error instanceof GatewayError && error.httpStatus === 400) return error.param;
    throw error;
  }
  throw new Error("the body was accepted");
}

const messages = [{ role: "user", content: "hi" }];
const valid: [string, z.ZodType, Record<string, unknown>][] = [
  ["chat", chatRequestSchema, { model: "m", messages }],
  ["completions", completionRequestSchema, { model: "m", prompt: "hi" }],
  ["embeddings", embeddingRequestSchema, { model: "m", input: "hi" }],
  ["image generations", imageGenerationSchema, { model: "m", prompt: "a boat" }],
  ["image edits", imageEditFieldsSchema, { model: "m", prompt: "a hat" }],
  ["responses", responsesRequestSchema, { model: "m", input: "hi" }],
  ["transcriptions", transcriptionFieldsSchema, { model: "m" }],
  ["videos", videoGenerationSchema, { model: "m", prompt: "a boat", async: true }],
];

describe("every edge schema", () => {
  it.each(valid)("%s takes a 256-character model and refuses a 257-character one", (_name, schema, body) => {
    expect(() => validateBody(schema, { ...body, model: "m".repeat(256) })).not.toThrow();
    expect(refusedParam(schema, { ...body, model: "m".repeat(257) })).toBe("model");
  });

  it.each([
    ["chat", chatRequestSchema, { model: "m", messages }, ["max_tokens", "max_completion_tokens", "n"]],
    ["completions", completionRequestSchema, { model: "m", prompt: "hi" }, ["max_tokens", "n"]],
    ["embeddings", embeddingRequestSchema, { model: "m", input: "hi" }, ["dimensions"]],
    ["responses", responsesRequestSchema, { model: "m", input: "hi" }, ["max_output_tokens"]],
    ["image generations", imageGenerationSchema, { model: "m", prompt: "a boat" }, ["n"]],
  ] as const)("%s refuses integers beyond int32, naming them", (_name, schema, body, params) => {
    for (const param of params) {
      expect(refusedParam(schema, { ...body, [param]: 2 ** 31 })).toBe(param);
    }
  });

  it("video refuses NUL in the prompt and the callback URL", () => {
    const body = { model: "m", prompt: "a boat", async: true };
    expect(refusedParam(videoGenerationSchema, { ...body, prompt: "a\u0000boat" })).toBe("prompt");
    expect(refusedParam(videoGenerationSchema, { ...body, callback_url: "https://a.example/\u0000" })).toBe(
      "callback_url",
    );
  });

  it("repeats only the start of an unknown argument's very long name", () => {
    const param = refusedParam(chatRequestSchema, { model: "m", messages, ["k".repeat(300_000)]: 1 });
    expect(param?.length).toBeLessThan(200);
  });
});
