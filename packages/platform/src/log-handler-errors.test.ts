import { EventEmitter } from "node:events";
import { Metadata, type ServerWritableStream, type sendUnaryData } from "@grpc/grpc-js";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { invalidRequest, toGrpcError } from "./errors.js";
import { unaryHandler } from "./grpc.js";
import { logHandlerErrors } from "./log-handler-errors.js";

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** A call as grpc-js hands it to a handler: a request, metadata, and events. */
function callWith(request: unknown, metadata = new Metadata()) {
  return Object.assign(new EventEmitter(), { request, metadata });
}

describe("logHandlerErrors", () => {
  it("logs a failed unary call once with the request id of its caller, and still answers it", async () => {
    const { logger, lines } = capturingLogger();
    const service = logHandlerErrors(logger, {
      fail: unaryHandler(async () => {
        throw invalidRequest("nope", "model");
      }),
      serve: unaryHandler(async () => ({ ok: true })),
    });
    const answer = (handler: (call: never, callback: never) => void, request: unknown) =>
      new Promise<unknown>((resolve) => {
        const callback: sendUnaryData<unknown> = (error, value) => resolve(error ?? value);
        handler(callWith(request) as never, callback as never);
      });
    const failed = await answer(service.fail, { caller: { requestId: "req_1" } });
    expect(failed).toMatchObject({ details: "nope" });
    expect(await answer(service.serve, { caller: { requestId: "req_2" } })).toEqual({ ok: true });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ rpc: "fail", request_id: "req_1", status: 400, level: 30 });
  });

  it("logs a stream's error with the request id from metadata, with the thrown error's stack", () => {
    const { logger, lines } = capturingLogger();
    const metadata = new Metadata();
    metadata.set("x-request-id", "req_3");
    const service = logHandlerErrors(logger, {
      stream: (call: ServerWritableStream<unknown, unknown>) => {
        call.emit("error", toGrpcError(new Error("broken pipe")));
      },
    });
    service.stream(callWith({}, metadata) as unknown as ServerWritableStream<unknown, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ rpc: "stream", request_id: "req_3", level: 50 });
    expect(JSON.stringify(lines[0])).toContain("broken pipe");
  });
});
