import { describe, expect, it } from "vitest";
import { openAISpecErrors, responseErrors, responseStreamEventErrors } from "./openai-spec.js";

const message = (part: Record<string, unknown>) => ({
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [part],
});

const response = (output: unknown[]) => ({
  id: "resp_1",
  object: "response",
  created_at: 1,
  status: "completed",
  model: "gpt-4o-mini",
  output,
  error: null,
  incomplete_details: null,
  instructions: null,
  tools: [],
  tool_choice: "auto",
  temperature: 1,
  top_p: 1,
  parallel_tool_calls: true,
  metadata: {},
});

describe("OpenAI's published Responses schemas", () => {
  it("accepts a response as OpenAI sends it", () => {
    expect(
      responseErrors(response([message({ type: "output_text", text: "Hi", annotations: [], logprobs: [] })])),
    ).toEqual([]);
  });

  it("names the path and the missing field of an output text part without logprobs", () => {
    expect(responseErrors(response([message({ type: "output_text", text: "Hi", annotations: [] })]))).toContain(
      "/output/0/content/0 must have required property 'logprobs'",
    );
  });

  it("checks a stream event against the schema of its own type", () => {
    const delta = { type: "response.custom_tool_call_input.delta", item_id: "ctc_1", output_index: 0, delta: "x" };
    expect(responseStreamEventErrors({ ...delta, sequence_number: 3 })).toEqual([]);
    expect(responseStreamEventErrors(delta)).toEqual(["/ must have required property 'sequence_number'"]);
  });

  it("refuses a stream event type the spec does not define", () => {
    expect(responseStreamEventErrors({ type: "response.made_up", sequence_number: 0 })).toEqual([
      '/type "response.made_up" is not a ResponseStreamEvent type',
    ]);
  });

  it("validates against any named component schema and refuses a name the spec lacks", () => {
    expect(openAISpecErrors("ResponseUsage", { input_tokens: 1 })).not.toEqual([]);
    expect(() => openAISpecErrors("NoSuchSchema", {})).toThrow("NoSuchSchema");
  });
});
