import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { type Exchange, wait } from "./http.js";

function fakeExchange(): Exchange & { response: EventEmitter } {
  return { closed: false, response: new EventEmitter() } as unknown as Exchange & { response: EventEmitter };
}

describe("wait", () => {
  it("resolves true after the delay and leaves no listener behind", async () => {
    const exchange = fakeExchange();
    expect(await wait(exchange, 5)).toBe(true);
    expect(exchange.response.listenerCount("close")).toBe(0);
  });

  it("resolves false at once when the connection closes, cancelling its timer", async () => {
    const exchange = fakeExchange();
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const before = timers();
    const pending = wait(exchange, 60_000);
    const during = timers();
    exchange.response.emit("close");
    const after = timers();
    expect([during, after]).toEqual([before + 1, before]);
    expect(await pending).toBe(false);
    expect(exchange.response.listenerCount("close")).toBe(0);
  });

  it("does not start a timer for a closed connection", async () => {
    const exchange = fakeExchange();
    exchange.closed = true;
    expect(await wait(exchange, 60_000)).toBe(false);
  });
});
