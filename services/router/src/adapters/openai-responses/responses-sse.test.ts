import { describe, expect, it } from "vitest";
import { failureBeforeOutput, opensStream, sseEvents, streamErrorEvent, terminalResponse } from "./responses-sse.js";

async function* arriving(...parts: string[]) {
  for (const part of parts) yield Buffer.from(part);
}

const collect = async (body: AsyncIterable<Buffer>) => {
  const events: string[] = [];
  for await (const event of sseEvents(body)) events.push(event.toString());
  return events;
};

describe("a Responses stream relayed event by event", () => {
  it("yields each event as the bytes it came in, however the network cut them", async () => {
    const events = await collect(
      arriving('event: response.created\ndata: {"a":', "1}\n\nevent: x\r\ndata: {}\r\n\r\nevent: y\ndata: 2\n\n", "\n"),
    );
    expect(events).toEqual([
      'event: response.created\ndata: {"a":1}\n\n',
      "event: x\r\ndata: {}\r\n\r\n",
      "event: y\ndata: 2\n\n",
    ]);
  });

  it("keeps a last event that lacks its blank line", async () => {
    expect(await collect(arriving("data: 1\n\ndata: 2"))).toEqual(["data: 1\n\n", "data: 2"]);
  });

  it("finds the response in completed, incomplete and failed events only", () => {
    const event = (type: string) =>
      Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, response: { id: "resp_1" } })}\n\n`);
    expect(terminalResponse(event("response.completed"))).toEqual({ id: "resp_1" });
    expect(terminalResponse(event("response.incomplete"))).toEqual({ id: "resp_1" });
    expect(terminalResponse(event("response.failed"))).toEqual({ id: "resp_1" });
    expect(terminalResponse(event("response.created"))).toBeUndefined();
    expect(terminalResponse(Buffer.from("event: response.completed\ndata: not json\n\n"))).toBeUndefined();
  });

  it("numbers the error that ends a broken stream after the last event relayed", () => {
    const last = Buffer.from('event: response.output_text.delta\ndata: {"type":"x","sequence_number":41}\n\n');
    const frame = streamErrorEvent(last, "server_error", "broke").toString();
    expect(frame.startsWith("event: error\ndata: ")).toBe(true);
    expect(JSON.parse(frame.slice("event: error\ndata: ".length))).toEqual({
      type: "error",
      code: "server_error",
      message: "broke",
      param: null,
      sequence_number: 42,
    });
  });
});

describe("a Responses stream that fails before any output", () => {
  const event = (type: string, fields: Record<string, unknown>) =>
    Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);

  it("is the vendor's failure as its status would have said it: a spent key is a key refusal", () => {
    const spent = event("error", {
      error: { type: "insufficient_quota", code: "insufficient_quota", message: "quota" },
    });
    expect(failureBeforeOutput(spent)?.keyRefusal).toBe("quota_exhausted");
    const failed = event("response.failed", { response: { error: { code: "server_error", message: "boom" } } });
    expect(failureBeforeOutput(failed)).toMatchObject({ httpStatus: 503, vendorStatus: 500 });
  });

  it("is told apart from the events that only open a stream, and from output", () => {
    expect(opensStream(event("response.created", { response: {} }))).toBe(true);
    expect(opensStream(event("response.output_item.added", { item: {} }))).toBe(false);
    expect(failureBeforeOutput(event("response.output_text.delta", { delta: "x" }))).toBeUndefined();
  });
});
