import type { sendUnaryData } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { CallsInFlight } from "./calls-in-flight.js";

type Handler = (call: unknown, callback?: sendUnaryData<unknown>) => unknown;

describe("calls in flight", () => {
  it("count a unary call until it answers and a streaming call until its handler's promise settles", async () => {
    const calls = new CallsInFlight();
    let answer: (() => void) | undefined;
    let endStream: (() => void) | undefined;
    const service = calls.track({
      unary: ((_call, callback) => {
        answer = () => callback!(null, "done");
      }) as Handler,
      stream: (() => new Promise<void>((resolve) => (endStream = resolve))) as Handler,
    }) as unknown as Record<string, Handler>;
    const answered: unknown[] = [];
    service.unary!({}, (_error, value) => answered.push(value));
    service.stream!({});

    let settled = false;
    const waiting = calls.settled(10_000).then(() => (settled = true));
    answer!();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toEqual(["done"]);
    expect(settled).toBe(false);
    endStream!();
    await waiting;
    expect(settled).toBe(true);
  });

  it("stop waiting after the time-out for a call that never ends", async () => {
    const calls = new CallsInFlight();
    const service = calls.track({ stream: (() => new Promise(() => undefined)) as Handler }) as unknown as Record<
      string,
      Handler
    >;
    service.stream!({});
    const started = Date.now();
    await calls.settled(50);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
