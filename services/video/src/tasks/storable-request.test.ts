import type { SubmitVideoRequest } from "@gateway/proto/video/v1/video";
import { describe, expect, it } from "vitest";
import { checkStorable } from "./storable-request.js";

const request: SubmitVideoRequest = {
  caller: undefined,
  model: "sora-2",
  prompt: "a paper boat",
  durationSeconds: 5,
  idempotencyKey: "",
  callbackUrl: "",
  publicBaseUrl: "",
};

const refusedParam = (changes: Partial<SubmitVideoRequest>) => {
  try {
    checkStorable({ ...request, ...changes });
  } catch (error) {
    return (error as { httpStatus: number; param: string }).param;
  }
  return undefined;
};

describe("checkStorable", () => {
  it("passes an ordinary submit", () => {
    expect(refusedParam({})).toBeUndefined();
  });

  it("refuses what Postgres or the unique index could not take, naming it", () => {
    expect(refusedParam({ model: "m".repeat(257) })).toBe("model");
    expect(refusedParam({ prompt: "a\u0000boat" })).toBe("prompt");
    expect(refusedParam({ callbackUrl: "https://a.example/\u0000" })).toBe("callback_url");
    expect(refusedParam({ idempotencyKey: "k".repeat(256) })).toBe("Idempotency-Key");
    expect(refusedParam({ idempotencyKey: "k\u0000" })).toBe("Idempotency-Key");
  });
});
