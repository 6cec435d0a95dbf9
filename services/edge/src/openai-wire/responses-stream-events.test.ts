import type { ChatChunk } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import type { ResponseBase } from "./render-response.js";
import { ResponseStreamEvents } from "./responses-stream-events.js";

const base: ResponseBase = {
  id: "resp_1",
  createdAt: 1,
  model: "m",
  settings: {} as ResponseBase["settings"],
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
});
