import { GatewayError } from "@gateway/platform";
import { type Caller, LogCapture } from "@gateway/proto/common/v1/common";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { chatAnswerLog } from "./answer-bodies.js";
import { chatRequestLog } from "./request-bodies.js";
import { requestLogOf, streamAnswerBudget } from "./request-log.js";

const caller = (logCapture?: LogCapture): Caller => ({
  requestId: "req-1",
  accountId: "acc-1",
  keyId: "key-1",
  modelGroup: "default",
  multiplierBasisPoints: 10_000,
  ...(logCapture !== undefined && { logCapture }),
});
const full = { capture: LogCapture.LOG_CAPTURE_FULL, maxBytes: 32_768 };
const secret = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";
const image = `data:image/png;base64,${"A".repeat(4_000)}`;

const request: ChatRequest = {
  caller: undefined,
  model: "gpt-4o-mini",
  messages: [
    { role: "system", text: "Be brief.", parts: [], toolCalls: [] },
    {
      role: "user",
      parts: [{ text: `Line one\nsk key:\n${secret}` }, { imageUrl: { url: image } }],
      toolCalls: [],
    },
  ],
  tools: [],
  anthropicBeta: [],
  anthropicExtraJson: "",
  stop: [],
  stream: false,
  includeUsage: false,
  extraJson: "",
};
const exchange = {
  request: () => chatRequestLog(request),
  answer: () =>
    chatAnswerLog({
      id: "chatcmpl-1",
      created: 1,
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { content: "Done.", toolCalls: [], thinkingBlocks: [] }, finishReason: "stop" }],
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    }),
};

describe("requestLogOf", () => {
  it("keeps the messages and the answer in full, with secrets redacted and images described", () => {
    const log = requestLogOf(full, caller(), exchange)!;
    expect(log.capture).toBe(LogCapture.LOG_CAPTURE_FULL);
    expect(log.truncated).toBe(false);
    expect(log.requestBody).not.toContain(secret);
    expect(log.requestBody).not.toContain("AAAA");
    expect(JSON.parse(log.requestBody)).toEqual({
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "Line one\nsk key:\n[redacted]" },
            { type: "image_url", image_url: { url: "data:image/png;base64,[… 3000 bytes]" } },
          ],
        },
      ],
    });
    expect(JSON.parse(log.responseBody)).toEqual({ choices: [{ index: 0, content: "Done.", finish_reason: "stop" }] });
  });

  it("cuts the bodies to the cap and flags it", () => {
    const log = requestLogOf({ ...full, maxBytes: 100 }, caller(), exchange)!;
    expect(Buffer.byteLength(log.requestBody) + Buffer.byteLength(log.responseBody)).toBeLessThanOrEqual(100);
    expect(log.truncated).toBe(true);
  });

  it("keeps only the error the client saw, redacted, at metadata level", () => {
    const error = new GatewayError(400, "invalid_request_error", null, `Incorrect API key provided: ${secret}.`);
    const log = requestLogOf(full, caller(LogCapture.LOG_CAPTURE_METADATA), { ...exchange, error });
    expect(log).toEqual({
      capture: LogCapture.LOG_CAPTURE_METADATA,
      requestBody: "",
      responseBody: "",
      truncated: false,
      errorMessage: "Incorrect API key provided: [redacted].",
    });
  });

  it("reports an unexpected failure as the generic error the client saw", () => {
    const log = requestLogOf(full, caller(), { ...exchange, error: new Error("socket hang up at 10.0.0.3") })!;
    expect(log.errorMessage).toBe("The server had an error while processing your request.");
  });

  it("logs nothing when the account or the deployment turns capture off", () => {
    expect(requestLogOf(full, caller(LogCapture.LOG_CAPTURE_OFF), exchange)).toBeUndefined();
    const off = { ...full, capture: LogCapture.LOG_CAPTURE_OFF };
    expect(requestLogOf(off, caller(), exchange)).toBeUndefined();
    expect(requestLogOf(off, caller(LogCapture.LOG_CAPTURE_UNSPECIFIED), exchange)).toBeUndefined();
    expect(requestLogOf(off, caller(LogCapture.LOG_CAPTURE_FULL), exchange)?.capture).toBe(LogCapture.LOG_CAPTURE_FULL);
  });

  it("collects a streamed answer only when the request is logged in full", () => {
    expect(streamAnswerBudget(full, caller())).toBe(32_768);
    expect(streamAnswerBudget(full, caller(LogCapture.LOG_CAPTURE_METADATA))).toBe(0);
  });
});

describe("chatRequestLog", () => {
  it("shows documents (base64 ones by size) and thinking, but not redacted thinking's data", () => {
    const logged = chatRequestLog({
      ...request,
      messages: [
        {
          role: "user",
          parts: [
            { document: { sourceType: "base64", mediaType: "application/pdf", data: "JVBERi0xLjQK", title: "spec" } },
            { document: { sourceType: "text", data: "plain words" } },
          ],
          toolCalls: [],
        },
        {
          role: "assistant",
          parts: [
            { thinking: { thinking: "plan", signature: "sig" } },
            { thinking: { thinking: "", redactedData: "xyz" } },
          ],
          toolCalls: [],
        },
      ],
    });
    expect(logged.messages.map((message) => message.content)).toEqual([
      [
        { type: "document", source_type: "base64", title: "spec", source: "data:application/pdf;base64,[… 9 bytes]" },
        { type: "document", source_type: "text", title: undefined, source: "plain words" },
      ],
      [{ type: "thinking", thinking: "plan" }, { type: "redacted_thinking" }],
    ]);
  });
});
