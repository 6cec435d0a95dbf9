import { GatewayError } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import { completionRequestSchema, refuseTokenPrompts } from "./completion-request-schema.js";
import { renderTextChunk, renderTextCompletion } from "./render-completion.js";
import { toCanonicalCompletion } from "./to-canonical-completion.js";
import { validateBody } from "./validate-body.js";

const caller = { requestId: "r", accountId: "a", keyId: "k", modelGroup: "default", multiplierBasisPoints: 10_000 };
const canonical = (body: unknown) => toCanonicalCompletion(validateBody(completionRequestSchema, body), caller);

function refusal(work: () => unknown): GatewayError {
  try {
    work();
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  throw new Error("expected a refusal");
}

describe("completions request", () => {
  it("defaults max_tokens to 16 and takes one or several prompts", () => {
    expect(canonical({ model: "m", prompt: "Hi" })).toMatchObject({ prompts: ["Hi"], maxTokens: 16, echo: false });
    expect(canonical({ model: "m", prompt: ["a", "b"], stop: "x", echo: true })).toMatchObject({
      prompts: ["a", "b"],
      stop: ["x"],
      echo: true,
    });
  });

  it("names the offending parameter", () => {
    expect(refusal(() => canonical({ model: "m", prompt: "a", temperature: 3 })).param).toBe("temperature");
    expect(refusal(() => canonical({ model: "m", prompt: [] })).param).toBe("prompt");
    expect(refusal(() => canonical({ model: "m", prompt: "a", logprobs: 2 })).param).toBe("logprobs");
    expect(refusal(() => canonical({ model: "m", prompt: ["a", "b"], n: 100 })).param).toBe("n");
    expect(refusal(() => canonical({ model: "m", prompt: "a", bogus: 1 })).param).toBe("bogus");
  });

  it("refuses token-id prompts by name", () => {
    expect(refusal(() => refuseTokenPrompts({ prompt: [1, 2] }))).toMatchObject({
      param: "prompt",
      code: "unsupported_value",
    });
    expect(refusal(() => refuseTokenPrompts({ prompt: [[1], [2]] })).param).toBe("prompt");
    expect(() => refuseTokenPrompts({ prompt: ["a"] })).not.toThrow();
  });
});

describe("text_completion rendering", () => {
  const choice = { index: 0, text: "hi", finishReason: "" };
  it("renders null finish reasons and logprobs, and usage only when asked", () => {
    const chunk = { id: "c", created: 1, model: "m", choices: [choice] };
    expect(renderTextChunk(chunk, true)).toEqual({
      id: "c",
      object: "text_completion",
      created: 1,
      model: "m",
      choices: [{ text: "hi", index: 0, logprobs: null, finish_reason: null }],
      usage: null,
    });
    expect(renderTextChunk(chunk, false)).not.toHaveProperty("usage");
    const usage = { promptTokens: 1, completionTokens: 2, totalTokens: 3 };
    const completion = renderTextCompletion({ ...chunk, choices: [{ ...choice, finishReason: "length" }], usage });
    expect(completion.choices[0]!.finish_reason).toBe("length");
    expect(completion.usage).toMatchObject({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
  });
});
