import { describe, expect, it } from "vitest";
import { CustomToolInputDecoder, customToolArguments, customToolInput } from "./custom-tool-input.js";

const patch = '*** Begin Patch\n*** Add File: a.txt\n+say "hi" \\ \u00e9\n*** End Patch';

/** The arguments cut into pieces of `size` characters, as a vendor streams them. */
const streamed = (argumentsJson: string, size: number) => {
  const decoder = new CustomToolInputDecoder();
  const deltas: string[] = [];
  for (let at = 0; at < argumentsJson.length; at += size) deltas.push(decoder.push(argumentsJson.slice(at, at + size)));
  return deltas;
};

describe("a freeform tool's input carried in function arguments", () => {
  it("reads the input back from the arguments the model wrote", () => {
    expect(customToolInput(customToolArguments(patch))).toBe(patch);
  });

  it("passes on arguments of another shape as the model wrote them", () => {
    expect(customToolInput('{"patch":"x"}')).toBe('{"patch":"x"}');
    expect(customToolInput("*** Begin Patch")).toBe("*** Begin Patch");
  });

  it.each([1, 2, 3, 7, 1000])("decodes the streamed input in fragments of %i characters into text deltas", (size) => {
    const argumentsJson = ` { "input" : ${JSON.stringify(patch)}, "extra": 1}`;
    expect(streamed(argumentsJson, size).join("")).toBe(patch);
  });

  it("decodes \\u escapes split across fragments", () => {
    expect(streamed(JSON.stringify({ input: "\u0001\u2028" }), 4).join("")).toBe("\u0001\u2028");
  });

  it("gives no deltas for arguments that do not open with the input string", () => {
    expect(streamed('{"patch":"x"}', 3).join("")).toBe("");
  });
});
