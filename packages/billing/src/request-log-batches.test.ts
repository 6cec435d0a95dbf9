import { randomBytes } from "node:crypto";
import { LogCapture } from "@gateway/proto/common/v1/common";
import type { RequestLogEntry } from "@gateway/proto/events/v1/events";
import { describe, expect, it } from "vitest";
import { requestLogEntriesOf, requestLogMessages } from "./request-log-batches.js";

const entry = (
  index: number,
  body = `{"messages":[{"role":"user","content":"question ${index}"}]}`,
): RequestLogEntry => ({
  requestId: `req-${index}`,
  accountId: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  startedAtMs: 1_764_000_000_000 + index,
  log: {
    capture: LogCapture.LOG_CAPTURE_FULL,
    requestBody: body,
    responseBody: `{"choices":[{"index":0,"content":"answer ${index}"}]}`,
    truncated: false,
    errorMessage: "",
  },
});

describe("request log batches", () => {
  it("carry the entries of one flush in one compressed message, whole", () => {
    const entries = Array.from({ length: 20 }, (_, index) => entry(index));
    const messages = requestLogMessages("gw.request-logs.router", entries);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.subject).toBe("gw.request-logs.router");
    expect(requestLogEntriesOf(messages[0]!.data)).toEqual(entries);
    const plain = entries.reduce((bytes, { log }) => bytes + log!.requestBody.length + log!.responseBody.length, 0);
    expect(messages[0]!.data.byteLength).toBeLessThan(plain / 2);
  });

  it("split what would not fit one NATS message, each part with an id of its own", () => {
    // Random text barely compresses: each entry takes most of its 200 KiB into the message too.
    const noise = () => randomBytes(150 * 1024).toString("base64");
    const entries = [0, 1, 2, 3].map((index) => entry(index, noise()));
    const messages = requestLogMessages("gw.request-logs.router", entries);
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expect(new Set(messages.map(({ id }) => id)).size).toBe(messages.length);
    expect(messages.flatMap(({ data }) => requestLogEntriesOf(data))).toEqual(entries);
    for (const { data } of messages) expect(data.byteLength).toBeLessThan(1024 * 1024);
  });

  it("leave a batch too small to gain from compression as it is", () => {
    const [message] = requestLogMessages("gw.request-logs.router", [entry(1)]);
    expect(Buffer.from(message!.data).toString()).toContain("question 1");
    expect(requestLogEntriesOf(message!.data)).toEqual([entry(1)]);
  });

  it("refuse to read what is not one", () => {
    expect(() => requestLogEntriesOf(new TextEncoder().encode("not a batch"))).toThrow();
    expect(() => requestLogEntriesOf(Buffer.from([0x1f, 0x8b, 1, 2, 3]))).toThrow();
  });
});
