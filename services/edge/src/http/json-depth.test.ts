import type { GatewayError } from "@gateway/shared";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, refuseDeepJson, tooDeep } from "./json-depth.js";

const bytes = (text: string) => Buffer.from(text);
const arrays = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("tooDeep", () => {
  it("allows nesting up to the limit and names nothing", () => {
    expect(tooDeep(bytes(arrays(MAX_JSON_DEPTH)))).toBeUndefined();
    expect(tooDeep(bytes('{"a":1,"b":[{"c":"d"}]}'))).toBeUndefined();
  });

  it("finds nesting past the limit, naming the top-level key it sits under", () => {
    expect(tooDeep(bytes(arrays(MAX_JSON_DEPTH + 1)))).toBe("");
    expect(tooDeep(bytes(`{"model":"m","metadata":${arrays(MAX_JSON_DEPTH)}}`))).toBe("metadata");
    expect(tooDeep(bytes(`{"a":{"b":1},"tools":[${arrays(3)}]}`), 3)).toBe("tools");
  });

  it("ignores brackets and escaped quotes inside strings", () => {
    expect(tooDeep(bytes(JSON.stringify({ text: '[[[[[[\\"{{{{{{' })), 2)).toBeUndefined();
    expect(tooDeep(bytes(JSON.stringify({ 'k"[': [[[]]] })), 3)).toBe('k"[');
  });
});

describe("refuseDeepJson", () => {
  it("refuses a too-deep body with a 400 naming the key", () => {
    const body = bytes(`{"metadata":${arrays(100)}}`);
    try {
      refuseDeepJson({} as never, {} as never, body);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ httpStatus: 400, param: "metadata", code: "json_too_deep" });
      expect((error as GatewayError).message).toContain(String(MAX_JSON_DEPTH));
    }
  });
});
