import { describe, expect, it } from "vitest";
import { responsesRequestSchema } from "./responses-request-schema.js";
import { responsesToChat } from "./responses-to-chat.js";

const caller = { requestId: "req_1", accountId: "a", keyId: "k", modelGroup: "default", multiplierBasisPoints: 10_000 };
const canonical = (body: unknown, history = []) => responsesToChat(responsesRequestSchema.parse(body), caller, history);

describe("Responses body to the canonical chat request", () => {
  it("makes a string input one user message after the instructions", () => {
    const request = canonical({ model: "m", input: "hi", instructions: "be brief", max_output_tokens: 50 });
    expect(request.messages).toEqual([
      { role: "system", text: "be brief", parts: [], toolCalls: [] },
      { role: "user", text: "hi", parts: [], toolCalls: [] },
    ]);
    expect(request.maxTokens).toBe(50);
  });

  it("joins function calls into one assistant turn and pairs their outputs", () => {
    const request = canonical({
      model: "m",
      input: [
        { role: "user", content: [{ type: "input_image", image_url: "https://example.com/a.png" }] },
        { type: "function_call", call_id: "c1", name: "a", arguments: "{}" },
        { type: "function_call", call_id: "c2", name: "b", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "one" },
      ],
    });
    expect(request.messages[0]!.parts).toEqual([{ imageUrl: { url: "https://example.com/a.png", detail: undefined } }]);
    expect(request.messages[1]).toMatchObject({ role: "assistant", toolCalls: [{ id: "c1" }, { id: "c2" }] });
    expect(request.messages[2]).toMatchObject({ role: "tool", text: "one", toolCallId: "c1" });
  });

  it("gives a reasoning item's text to the assistant turn after it, and skips one with no text", () => {
    const call = (id: string) => ({ type: "function_call", call_id: id, name: "a", arguments: "{}" });
    const request = canonical({
      model: "m",
      reasoning: { effort: "high" },
      input: [
        { role: "user", content: "q" },
        { type: "reasoning", summary: [{ type: "summary_text", text: "Think" }] },
        call("c1"),
        { type: "reasoning", summary: [], encrypted_content: "opaque" },
        call("c2"),
      ],
    });
    expect(request.reasoningEffort).toBe("high");
    expect(request.messages).toHaveLength(2);
    expect(request.messages[1]).toMatchObject({
      role: "assistant",
      reasoningContent: "Think",
      toolCalls: [{ id: "c1" }, { id: "c2" }],
    });
  });

  it("nests a flat json_schema format as chat's response_format and maps flat tools", () => {
    const request = canonical({
      model: "m",
      input: "hi",
      text: { format: { type: "json_schema", name: "r", schema: { type: "object" }, strict: true } },
      tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: true }],
      tool_choice: { type: "function", name: "f" },
    });
    expect(request.responseFormat).toEqual({
      type: "json_schema",
      jsonSchemaJson: JSON.stringify({ name: "r", schema: { type: "object" }, strict: true }),
    });
    expect(request.tools).toEqual([
      { name: "f", description: undefined, parametersJson: '{"type":"object"}', strict: true },
    ]);
    expect(request.toolChoice).toEqual({ mode: "function", functionName: "f" });
  });

  it("puts the stored conversation between the instructions and the new input", () => {
    const earlier = [{ role: "user", text: "before", parts: [], toolCalls: [] }];
    const request = responsesToChat(
      responsesRequestSchema.parse({ model: "m", input: "after", instructions: "sys" }),
      caller,
      earlier,
    );
    expect(request.messages.map((message) => message.text)).toEqual(["sys", "before", "after"]);
  });

  it("refuses tools other than functions", () => {
    const parsed = responsesRequestSchema.safeParse({ model: "m", input: "hi", tools: [{ type: "web_search" }] });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(["tools", 0, "type"]);
  });
});
