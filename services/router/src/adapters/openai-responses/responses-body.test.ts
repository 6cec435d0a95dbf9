import { describe, expect, it } from "vitest";
import { bodyForVendor } from "./responses-body.js";

const bytes = (text: string) => Buffer.from(text, "utf8");
const text = (body: Uint8Array) => Buffer.from(body).toString("utf8");

describe("the body relayed to OpenAI's Responses API", () => {
  it("is the client's own bytes when the vendor knows the model by the client's name", () => {
    const body = bytes('{ "model" : "gpt-5",\n  "input":"hi", "future_field": {"x": 1.50} }');
    expect(bodyForVendor(body, "gpt-5", "gpt-5")).toBe(body);
  });

  it("changes only the top-level model value when the vendor's id differs", () => {
    const body = bytes(
      '{"input":[{"model":"keep","text":"\\"model\\": \\"x\\""}], "model" : "gpt-5-latest" ,"n": 1.50}',
    );
    expect(text(bodyForVendor(body, "gpt-5-latest", "gpt-5-2025-08-07"))).toBe(
      '{"input":[{"model":"keep","text":"\\"model\\": \\"x\\""}], "model" : "gpt-5-2025-08-07" ,"n": 1.50}',
    );
  });

  it("replaces every top-level model value, so no parser reads the client's name", () => {
    const body = bytes('{"model":"a","metadata":{"model":"a"},"model":"a"}');
    expect(text(bodyForVendor(body, "a", "b"))).toBe('{"model":"b","metadata":{"model":"a"},"model":"b"}');
  });

  it("keeps text beyond ASCII as it was", () => {
    const body = bytes('{"model":"a","input":"你好 \\u00e9 é"}');
    expect(text(bodyForVendor(body, "a", "b"))).toBe('{"model":"b","input":"你好 \\u00e9 é"}');
  });
});
