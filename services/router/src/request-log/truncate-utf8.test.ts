import { describe, expect, it } from "vitest";
import { fitBodies, truncateUtf8 } from "./truncate-utf8.js";

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

describe("fitBodies", () => {
  it("keeps both bodies when together they fit", () => {
    expect(fitBodies("a".repeat(60), "b".repeat(40), 100)).toEqual({
      request: "a".repeat(60),
      response: "b".repeat(40),
      truncated: false,
    });
  });

  it("gives a long answer what a short request leaves", () => {
    const fitted = fitBodies("a".repeat(10), "b".repeat(500), 100);
    expect(fitted).toEqual({ request: "a".repeat(10), response: "b".repeat(90), truncated: true });
  });

  it("gives a long request what a short answer leaves", () => {
    const fitted = fitBodies("a".repeat(500), "b".repeat(10), 100);
    expect(fitted).toEqual({ request: "a".repeat(90), response: "b".repeat(10), truncated: true });
  });

  it("splits the cap when both are long, counting bytes", () => {
    const fitted = fitBodies("é".repeat(500), "b".repeat(500), 100);
    expect(fitted.request).toBe("é".repeat(25));
    expect(fitted.response).toBe("b".repeat(50));
    expect(fitted.truncated).toBe(true);
  });
});
