import { EventEmitter } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { notFound, serviceUnavailable, toGrpcError } from "@gateway/platform";
import { type ClientReadableStream, status as grpcStatus } from "@grpc/grpc-js";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataFrames } from "../sse/data-frames.js";
import { relayCall } from "./relay-call.js";

// A stand-in for grpc-js's client stream: tests play its events in any order.
class PlayedCall extends EventEmitter {
  cancels = 0;
  cancel() {
    this.cancels += 1;
  }
  pause() {}
  resume() {}
}

let server: Server;
let url: string;
let calls: PlayedCall[] = [];
// Set by a test to hold the end of a stream open, as storing a Responses answer does.
let holdTail: (() => Promise<string>) | undefined;

beforeAll(async () => {
  const app = express();
  app.post("/", (_request, response) => {
    const call = new PlayedCall();
    calls.push(call);
    const rendering = dataFrames((chunk: string) => ({ text: chunk }));
    relayCall(call as unknown as ClientReadableStream<string>, response, {
      ...rendering,
      close: () => holdTail?.() ?? rendering.close(),
    });
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const asCallError = (error: unknown) => Object.assign(new Error("call failed"), toGrpcError(error));
const unknownModel = () => asCallError(notFound("The model 'x' does not exist."));
const vendorCut = () => asCallError(serviceUnavailable("The vendor cut the stream."));
const cancelled = () => Object.assign(new Error("cancelled"), { code: grpcStatus.CANCELLED });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends a request, waits for its call to exist and plays `events` on it. */
async function start(events: (call: PlayedCall) => void, signal?: AbortSignal) {
  calls = [];
  const answer = fetch(url, { method: "POST", signal });
  while (calls.length === 0) await pause(5);
  const call = calls[0]!;
  events(call);
  return { call, response: await answer };
}

async function relay(events: (call: PlayedCall) => void) {
  const { call, response } = await start(events);
  return { call, status: response.status, text: await response.text() };
}

describe("relayCall", () => {
  it("answers a failure before output with its HTTP error, whatever follows it", async () => {
    const { status, text, call } = await relay((call) => {
      call.emit("error", unknownModel());
      call.emit("status", { code: grpcStatus.NOT_FOUND });
      call.emit("end");
      call.emit("data", "late");
    });
    expect(status).toBe(404);
    expect(text).not.toContain("late");
    expect(call.cancels).toBe(0);
  });

  it("ends with an error frame when output came first, and ignores a later end", async () => {
    const { status, text } = await relay((call) => {
      call.emit("data", "one");
      call.emit("error", vendorCut());
      call.emit("end");
    });
    expect(status).toBe(200);
    expect(text.startsWith('data: {"text":"one"}\n\n')).toBe(true);
    expect(text).toContain('"error"');
    expect(text).not.toContain("[DONE]");
  });

  it("finishes with [DONE] and ignores an error after the end", async () => {
    const { status, text } = await relay((call) => {
      call.emit("data", "one");
      call.emit("end");
      call.emit("error", cancelled());
    });
    expect(status).toBe(200);
    expect(text).toBe('data: {"text":"one"}\n\ndata: [DONE]\n\n');
  });

  it("opens an empty stream for a call that ends without chunks", async () => {
    expect(await relay((call) => call.emit("end"))).toMatchObject({ status: 200, text: "data: [DONE]\n\n" });
  });

  it("cancels the call once when the client leaves, even while the tail is being made", async () => {
    let release: (tail: string) => void = () => undefined;
    holdTail = () => new Promise((resolve) => (release = resolve));
    const controller = new AbortController();
    const { call, response } = await start((call) => call.emit("data", "one"), controller.signal);
    expect(response.status).toBe(200);
    call.emit("end");
    controller.abort();
    await pause(50);
    release("data: [DONE]\n\n");
    holdTail = undefined;
    call.emit("error", cancelled());
    await pause(20);
    expect(call.cancels).toBe(1);
  });
});
