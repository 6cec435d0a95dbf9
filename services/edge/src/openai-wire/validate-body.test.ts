import { GatewayError } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import { chatRequestSchema } from "./chat-request-schema.js";
import { validateBody } from "./validate-body.js";

const valid = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

function rejection(body: unknown): GatewayError {
  try {
    validateBody(chatRequestSchema, body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("the body was accepted");
}

describe("chat request validation", () => {
  it("accepts a full, valid request", () => {
    const body = {
      ...valid,
      temperature: 0,
      top_p: 1,
      max_completion_tokens: 10,
      n: 2,
      stop: ["\n"],
      seed: 7,
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      response_format: { type: "json_object" },
    };
    expect(validateBody(chatRequestSchema, body).model).toBe("gpt-4o-mini");
  });

  it.each([
    [{ ...valid, temperature: 2.5 }, "temperature"],
    [{ ...valid, temperature: -0.1 }, "temperature"],
    [{ ...valid, top_p: 1.5 }, "top_p"],
    [{ ...valid, messages: [] }, "messages"],
    [{ ...valid, messages: [{ role: "wizard", content: "hi" }] }, "messages[0].role"],
    [{ ...valid, messages: [{ role: "user", content: 3 }] }, "messages[0].content"],
    [{ ...valid, model: "" }, "model"],
    [{ messages: valid.messages }, "model"],
    [{ ...valid, max_tokens: 0 }, "max_tokens"],
    [{ ...valid, n: 200 }, "n"],
    [{ ...valid, stream_options: { include_usage: true } }, "stream_options"],
    [{ ...valid, frobnicate: true }, "frobnicate"],
  ])("rejects %j naming %s", (body, param) => {
    const error = rejection(body);
    expect(error.httpStatus).toBe(400);
    expect(error.type).toBe("invalid_request_error");
    expect(error.param).toBe(param);
  });

  it("rejects a body that is not a JSON object", () => {
    expect(rejection([1, 2]).httpStatus).toBe(400);
    expect(rejection(undefined).httpStatus).toBe(400);
  });

  it("names an unknown field the way OpenAI does", () => {
    expect(rejection({ ...valid, frobnicate: 1 }).message).toBe("Unrecognized request argument supplied: frobnicate");
  });
});
