import { describe, expect, it } from "vitest";
import { resolveRange } from "./byte-range.js";

describe("resolveRange", () => {
  it("serves a closed, open and suffix range", () => {
    expect(resolveRange("bytes=0-99", 1000)).toEqual({ kind: "partial", start: 0, end: 99 });
    expect(resolveRange("bytes=900-", 1000)).toEqual({ kind: "partial", start: 900, end: 999 });
    expect(resolveRange("bytes=-100", 1000)).toEqual({ kind: "partial", start: 900, end: 999 });
    expect(resolveRange("bytes=-5000", 1000)).toEqual({ kind: "partial", start: 0, end: 999 });
  });

  it("clamps an end past the file", () => {
    expect(resolveRange("bytes=990-5000", 1000)).toEqual({ kind: "partial", start: 990, end: 999 });
  });

  it("refuses a start past the end and an empty suffix", () => {
    expect(resolveRange("bytes=1000-", 1000)).toEqual({ kind: "unsatisfiable" });
    expect(resolveRange("bytes=-0", 1000)).toEqual({ kind: "unsatisfiable" });
  });

  it("sends the whole file for no, malformed, reversed or multiple ranges", () => {
    expect(resolveRange("", 1000)).toEqual({ kind: "whole" });
    expect(resolveRange("items=0-1", 1000)).toEqual({ kind: "whole" });
    expect(resolveRange("bytes=5-2", 1000)).toEqual({ kind: "whole" });
    expect(resolveRange("bytes=0-1,5-6", 1000)).toEqual({ kind: "whole" });
  });
});
