import { ErrorDetail } from "@gateway/proto/common/v1/common";
import { Metadata, status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { echoed, fromGrpcError, invalidRequest, modelNotFound, toGrpcError } from "./errors.js";

describe("errors crossing gRPC", () => {
  it("cut the status message and the trailer's message to a few hundred bytes", () => {
    const grpcError = toGrpcError(invalidRequest(`bad: ${"é".repeat(200_000)}`, "model"));
    expect(Buffer.byteLength(grpcError.details ?? "")).toBeLessThanOrEqual(512);
    const trailer = grpcError.metadata?.get("gateway-error-bin")[0] as Buffer;
    expect(trailer.length).toBeLessThan(700);
    const detail = ErrorDetail.decode(trailer);
    expect(detail.message).toBe(grpcError.details);
    expect(detail.message).not.toContain("\uFFFD");
    expect(fromGrpcError(grpcError)).toMatchObject({ httpStatus: 400, param: "model" });
  });

  it("become a retryable 503 when the transport failed or the server cut the call", () => {
    for (const code of [status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.CANCELLED]) {
      const error = Object.assign(new Error("cut"), { code, details: "cut", metadata: new Metadata() });
      expect(fromGrpcError(error)).toMatchObject({ httpStatus: 503, retryable: true });
    }
  });

  it("keep what was thrown for the handler's log, out of what grpc-js reads", () => {
    const thrown = new Error("disk full");
    const grpcError = toGrpcError(thrown);
    expect(grpcError.thrown).toBe(thrown);
    expect(Object.keys(grpcError)).not.toContain("thrown");
    expect(grpcError.details).not.toContain("disk full");
  });
});

describe("echoed identifiers", () => {
  it("repeat short ids whole and only the start of long ones", () => {
    expect(echoed("gpt-4o")).toBe("gpt-4o");
    expect(echoed("x".repeat(300_000))).toBe(`${"x".repeat(100)}…`);
    expect(modelNotFound("x".repeat(300_000)).message.length).toBeLessThan(200);
  });
});
