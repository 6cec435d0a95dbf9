import { responseStreamEventErrors } from "@gateway/openai-spec";
import type { ChatChunk } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { thinkingOfEncryptedReasoning } from "./encrypted-reasoning.js";
import { type ResponseBase, responseSettings } from "./render-response.js";
import { ResponseStreamEvents } from "./responses-stream-events.js";
import type { ChatFunction } from "./responses-tools-to-chat.js";

const base: ResponseBase = {
  id: "resp_1",
  createdAt: 1,
  model: "m",
  settings: responseSettings({ model: "m", input: [{ role: "user", content: "hi" }] }),
  toolKinds: new Map<string, ChatFunction>([
    ["apply_patch", { kind: "custom" }],
    ["tool_search", { kind: "tool_search" }],
    ["spawn_agent", { kind: "function", namespace: "multi_agent_v1" }],
  ]),
  encryptedReasoning: true,
};

const chunk = (delta: ChatChunk["choices"][number]["delta"], finishReason?: string): ChatChunk => ({
  id: "c",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta, finishReason }],
});
const text = (content: string, finishReason?: string) => chunk({ content, toolCalls: [] }, finishReason);

describe("chat chunks as Responses stream events", () => {
  it("opens a message, streams its text and closes it before completing", () => {
    const events = new ResponseStreamEvents(base);
    const all = [...events.start(), ...events.onChunk(text("Hel")), ...events.onChunk(text("lo", "stop"))];
    const { events: tail, response } = events.finish();
    all.push(...tail);
    expect(all.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, index) => index));
    expect(response.output).toMatchObject([{ type: "message", content: [{ text: "Hello" }], status: "completed" }]);
  });

  it("streams tool calls as items with argument deltas, one after the other", () => {
    const events = new ResponseStreamEvents(base);
    const all = [
      ...events.onChunk(chunk({ toolCalls: [{ index: 0, id: "call_a", name: "a", arguments: '{"x"' }] })),
      ...events.onChunk(chunk({ toolCalls: [{ index: 0, arguments: ":1}" }] })),
      ...events.onChunk(chunk({ toolCalls: [{ index: 1, id: "call_b", name: "b", arguments: "{}" }] }, "tool_calls")),
      ...events.finish().events,
    ];
    expect(all.map((event) => event.type)).toEqual([
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(all[3]).toMatchObject({ name: "a", arguments: '{"x":1}', output_index: 0 });
    expect(all[8]).toMatchObject({ output_index: 1, item: { call_id: "call_b", status: "completed" } });
  });

  it("ends a length cut as response.incomplete", () => {
    const events = new ResponseStreamEvents(base);
    events.onChunk(text("cut", "length"));
    const { events: tail, response } = events.finish();
    expect(tail.at(-1)!.type).toBe("response.incomplete");
    expect(response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
  });

  it("ends a filtered answer as response.incomplete with reason content_filter", () => {
    const events = new ResponseStreamEvents(base);
    events.onChunk(text("", "content_filter"));
    const { events: tail, response } = events.finish();
    expect(tail.at(-1)!.type).toBe("response.incomplete");
    expect(response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "content_filter" } });
  });

  it("fails with response.failed and then an error event", () => {
    const events = new ResponseStreamEvents(base);
    events.onChunk(text("partial"));
    const failed = events.fail({ code: "server_error", message: "broken", param: null, type: "server_error" });
    expect(failed.map((event) => event.type)).toEqual(["response.failed", "error"]);
    expect(failed[0]).toMatchObject({ response: { status: "failed", error: { code: "server_error" } } });
    expect(failed[1]).toMatchObject({ code: "server_error", error: { message: "broken", type: "server_error" } });
  });

  it("streams a freeform tool's call as custom_tool_call input text decoded from the function arguments", () => {
    const events = new ResponseStreamEvents(base);
    const argumentsJson = JSON.stringify({ input: '*** Begin Patch\n+"x"\n*** End Patch' });
    const all = [
      ...events.onChunk(
        chunk({ toolCalls: [{ index: 0, id: "call_p", name: "apply_patch", arguments: argumentsJson.slice(0, 15) }] }),
      ),
      ...events.onChunk(chunk({ toolCalls: [{ index: 0, arguments: argumentsJson.slice(15) }] }, "tool_calls")),
    ];
    const { events: tail, response } = events.finish();
    all.push(...tail);
    expect(all.map((event) => event.type)).toEqual([
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const deltas = all.flatMap((event) =>
      event.type === "response.custom_tool_call_input.delta" ? [event.delta] : [],
    );
    expect(deltas.join("")).toBe('*** Begin Patch\n+"x"\n*** End Patch');
    expect(all[0]).toMatchObject({
      item: { type: "custom_tool_call", call_id: "call_p", input: "", status: "in_progress" },
    });
    expect(response.output).toEqual([
      {
        type: "custom_tool_call",
        id: expect.stringMatching(/^ctc_/),
        call_id: "call_p",
        name: "apply_patch",
        input: '*** Begin Patch\n+"x"\n*** End Patch',
        status: "completed",
      },
    ]);
  });

  it("streams a client-run tool search as a tool_search_call item with its arguments as an object", () => {
    const events = new ResponseStreamEvents(base);
    const all = [
      ...events.onChunk(
        chunk({ toolCalls: [{ index: 0, id: "call_s", name: "tool_search", arguments: '{"query":' }] }),
      ),
      ...events.onChunk(chunk({ toolCalls: [{ index: 0, arguments: '"github"}' }] }, "tool_calls")),
      ...events.finish().events,
    ];
    expect(all.map((event) => event.type)).toEqual([
      "response.output_item.added",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(all[1]).toMatchObject({
      item: { type: "tool_search_call", call_id: "call_s", execution: "client", arguments: { query: "github" } },
    });
  });

  it("carries Claude's signed and redacted thinking in the reasoning item's encrypted_content when asked", () => {
    const stream = (asked: boolean) => {
      const events = new ResponseStreamEvents({ ...base, encryptedReasoning: asked });
      events.onChunk(chunk({ reasoningContent: "Let me ", toolCalls: [] }));
      events.onChunk(chunk({ reasoningContent: "think", toolCalls: [] }));
      events.onChunk(chunk({ reasoningSignature: "sig-1", toolCalls: [] }));
      events.onChunk(chunk({ redactedThinking: "hidden", toolCalls: [] }));
      events.onChunk(text("Answer", "stop"));
      return events.finish().response.output[0] as { type: string; encrypted_content?: string; summary: unknown[] };
    };
    const reasoning = stream(true);
    expect(reasoning).toMatchObject({ type: "reasoning", summary: [{ text: "Let me think" }] });
    expect(thinkingOfEncryptedReasoning(reasoning.encrypted_content)).toEqual([
      { thinking: "Let me think", signature: "sig-1" },
      { thinking: "", redactedData: "hidden" },
    ]);
    expect(stream(false)).not.toHaveProperty("encrypted_content");
  });

  it("makes only events that OpenAI's published schema allows", () => {
    const events = new ResponseStreamEvents(base);
    const all = [
      ...events.start(),
      ...events.onChunk(chunk({ reasoningContent: "hm", toolCalls: [] })),
      ...events.onChunk(chunk({ reasoningSignature: "sig", toolCalls: [] })),
      ...events.onChunk(text("Hi")),
      ...events.onChunk(chunk({ toolCalls: [{ index: 0, id: "c1", name: "f", arguments: "{}" }] })),
      ...events.onChunk(
        chunk({ toolCalls: [{ index: 1, id: "c2", name: "apply_patch", arguments: '{"input":"x"}' }] }),
      ),
      ...events.onChunk(chunk({ toolCalls: [{ index: 2, id: "c3", name: "tool_search", arguments: "{}" }] })),
      ...events.onChunk(chunk({ toolCalls: [{ index: 3, id: "c4", name: "spawn_agent", arguments: "{}" }] })),
      ...events.onChunk({ ...text("", "tool_calls"), usage: { promptTokens: 5, completionTokens: 3, totalTokens: 8 } }),
      ...events.finish().events,
      ...events.fail({ code: "server_error", message: "broken", param: null, type: "server_error" }),
    ];
    expect(all.flatMap((event) => responseStreamEventErrors(event).map((error) => `${event.type}: ${error}`))).toEqual(
      [],
    );
  });
});
