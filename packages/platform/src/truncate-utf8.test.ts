import { describe, expect, it } from "vitest";
import { truncateUtf8 } from "./truncate-utf8.js";

const bytes = (text: string) => Buffer.byteLength(text);

describe("truncateUtf8", () => {
  it("keeps text that fits", () => {
    expect(truncateUtf8("héllo", 6)).toEqual({ text: "héllo", truncated: false });
  });

  it("cuts at the byte limit", () => {
    expect(truncateUtf8("abcdef", 4)).toEqual({ text: "abcd", truncated: true });
  });

  it("never splits a multi-byte character", () => {
    // "é" is 2 bytes, "€" 3 and "😀" 4 (a surrogate pair in JavaScript).
    expect(truncateUtf8("aé", 2)).toEqual({ text: "a", truncated: true });
    expect(truncateUtf8("a€b", 3)).toEqual({ text: "a", truncated: true });
    expect(truncateUtf8("a😀", 4)).toEqual({ text: "a", truncated: true });
    expect(truncateUtf8("a😀b", 5)).toEqual({ text: "a😀", truncated: true });
    for (let limit = 0; limit < 12; limit += 1) {
      const { text } = truncateUtf8("€😀é€", limit);
      expect(bytes(text)).toBeLessThanOrEqual(limit);
      expect(text).not.toContain("\uFFFD");
      expect("€😀é€".startsWith(text)).toBe(true);
    }
  });
});
