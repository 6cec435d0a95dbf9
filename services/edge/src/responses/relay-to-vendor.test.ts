import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { BodyBudget, notFound, toGrpcError } from "@gateway/platform";
import type { RelayResponseReply, ResponsesRelayServiceClient } from "@gateway/proto/router/v1/responses_relay";
import { status as grpcStatus } from "@grpc/grpc-js";
import express, { type NextFunction, type Request, type Response } from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jsonBody } from "../http/json-body.js";
import { QuotaRefusals } from "../http/quota-refusals.js";
import { sendError } from "../http/send-error.js";
import type { RenderedResponse } from "../openai-wire/render-response.js";
import { relayToVendor } from "./relay-to-vendor.js";
import type { ResponseStore } from "./response-store.js";

// Edge's one decision on /v1/responses: the relay answers, or chat does. Router is played by a
// stream whose replies each test chooses.

class PlayedRelay extends Readable {
  cancelled = false;
  constructor() {
    super({ objectMode: true, read: () => {} });
  }
  cancel() {
    this.cancelled = true;
  }
}

let server: Server;
let url: string;
let play: (call: PlayedRelay) => void;
let calls: { body: Buffer; stream: boolean }[] = [];
let saved: RenderedResponse[] = [];

const relay = {
  relayResponse(request: { body: Buffer; stream: boolean }) {
    calls.push(request);
    const call = new PlayedRelay();
    setImmediate(() => play(call));
    return call;
  },
} as unknown as ResponsesRelayServiceClient;
const store = { save: async (_account: string, stored: { response: RenderedResponse }) => saved.push(stored.response) };
const logger = { warn: () => {} };

beforeAll(async () => {
  const app = express();
  const admission = { budget: new BodyBudget(1024 * 1024), unpaid: new QuotaRefusals() };
  app.post(
    "/v1/responses",
    (_request: Request, response: Response, next: NextFunction) => {
      response.locals.caller = { accountId: "a1", requestId: "r1", modelGroup: "default" };
      next();
    },
    jsonBody(1024 * 1024, admission, true),
    async (request: Request, response: Response) => {
      const deps = { relay, store: store as unknown as ResponseStore, logger: logger as never };
      if (!(await relayToVendor(deps, request, response))) response.json({ translated: true });
    },
  );
  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => sendError(response, error));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/responses`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  calls = [];
  saved = [];
});

const post = (text: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: text });
const replies = (call: PlayedRelay, ...parts: RelayResponseReply[]) => {
  for (const part of parts) call.push(part);
  call.push(null);
};
const callError = (error: Error, code: number) => Object.assign(error, { code });
const errorOf = async (answer: globalThis.Response) =>
  ((await answer.json()) as { error: Record<string, unknown> }).error;

describe("relaying /v1/responses", () => {
  it("hands the request to chat when router says the model is not relayed", async () => {
    play = (call) => replies(call, { notRelayed: {} });
    const answer = await post('{"model":"claude-sonnet-4-5","input":"hi"}');
    expect(await answer.json()).toEqual({ translated: true });
  });

  it("hands the request to chat when the router predates the relay", async () => {
    play = (call) => call.emit("error", callError(new Error("unimplemented"), grpcStatus.UNIMPLEMENTED));
    const answer = await post('{"model":"gpt-5","input":"hi"}');
    expect(await answer.json()).toEqual({ translated: true });
  });

  it("sends router the client's bytes and writes the vendor's status and bytes, keeping the response", async () => {
    const vendorJson = '{"id":"resp_1","object":"response","status":"completed","output":[]}';
    play = (call) =>
      replies(call, { head: { status: 200, contentType: "application/json" } }, { chunk: Buffer.from(vendorJson) });
    const sent = '{ "model": "gpt-5",  "input": "hi", "future": 1.50 }';
    const answer = await post(sent);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(vendorJson);
    expect(calls.map((call) => call.body.toString())).toEqual([sent]);
    expect(saved.map((response) => response.id)).toEqual(["resp_1"]);
  });

  it("keeps nothing of a response sent with store false", async () => {
    play = (call) =>
      replies(
        call,
        { head: { status: 200, contentType: "application/json" } },
        { chunk: Buffer.from('{"id":"resp_2"}') },
      );
    await (await post('{"model":"gpt-5","input":"hi","store":false}')).text();
    expect(saved).toEqual([]);
  });

  it("answers router's refusal before any reply with its status and OpenAI's error shape", async () => {
    play = (call) => call.emit("error", Object.assign(new Error("not found"), toGrpcError(notFound("No such model."))));
    const answer = await post('{"model":"gpt-nope","input":"hi"}');
    expect(answer.status).toBe(404);
    expect(await errorOf(answer)).toMatchObject({ message: "No such model." });
  });

  it("refuses a malformed body before router is called", async () => {
    const answer = await post('{"model":"gpt-5","input":"hi","temperature":3}');
    expect(answer.status).toBe(400);
    expect(await errorOf(answer)).toMatchObject({ param: "temperature" });
    expect(calls).toEqual([]);
  });
});
