import { describe, expect, it } from "vitest";
import { encryptedReasoning, thinkingOfEncryptedReasoning } from "./encrypted-reasoning.js";

describe("vendor reasoning carried in a reasoning item's encrypted_content", () => {
  it("gives back the signed and redacted thinking blocks it was made from", () => {
    const blocks = [
      { thinking: "plan", signature: "sig" },
      { thinking: "", redactedData: "opaque" },
    ];
    const content = encryptedReasoning(blocks)!;
    expect(content).toMatch(/^[\w.-]+$/);
    expect(thinkingOfEncryptedReasoning(content)).toEqual(blocks);
  });

  it("carries nothing when the vendor signed nothing", () => {
    expect(encryptedReasoning([])).toBeUndefined();
  });

  it("finds no thinking in OpenAI's own encrypted content or in garbled content", () => {
    expect(thinkingOfEncryptedReasoning("gAAAAABo-openai-encrypted")).toEqual([]);
    expect(thinkingOfEncryptedReasoning("gw1.!!!")).toEqual([]);
    expect(
      thinkingOfEncryptedReasoning(`gw1.${Buffer.from('{"thinking_blocks":[{"x":1}]}').toString("base64url")}`),
    ).toEqual([]);
    expect(thinkingOfEncryptedReasoning(null)).toEqual([]);
  });
});
