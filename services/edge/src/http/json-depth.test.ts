import type { GatewayError } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, refuseDeepJson, tooDeep } from "./json-depth.js";

const arrays = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("tooDeep", () => {
  it("allows nesting up to the limit and names nothing", () => {
    expect(tooDeep(arrays(MAX_JSON_DEPTH))).toBeUndefined();
    expect(tooDeep('{"a":1,"b":[{"c":"d"}]}')).toBeUndefined();
  });

  it("finds nesting past the limit, naming the top-level key it sits under", () => {
    expect(tooDeep(arrays(MAX_JSON_DEPTH + 1))).toBe("");
    expect(tooDeep(`{"model":"m","metadata":${arrays(MAX_JSON_DEPTH)}}`)).toBe("metadata");
    expect(tooDeep(`{"a":{"b":1},"tools":[${arrays(3)}]}`, 3)).toBe("tools");
  });

  it("ignores brackets and escaped quotes inside strings", () => {
    expect(tooDeep(JSON.stringify({ text: '[[[[[[\\"{{{{{{' }), 2)).toBeUndefined();
    expect(tooDeep(JSON.stringify({ 'k"[': [[[]]] }), 3)).toBe('k"[');
  });
});

describe("refuseDeepJson", () => {
  it("refuses a too-deep body with a 400 naming the key", () => {
    try {
      refuseDeepJson(`{"metadata":${arrays(100)}}`);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ httpStatus: 400, param: "metadata", code: "json_too_deep" });
      expect((error as GatewayError).message).toContain(String(MAX_JSON_DEPTH));
    }
  });
});
