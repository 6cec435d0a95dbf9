import { describe, expect, it } from "vitest";
import { contentUrl, signContent, verifyContentSignature } from "./signed-url.js";

const key = "a-signing-key-of-some-length";

describe("signed content links", () => {
  it("verifies its own signature and nothing else", () => {
    const signature = signContent(key, "task_1", 1_700_000_000);
    expect(verifyContentSignature(key, "task_1", 1_700_000_000, signature)).toBe(true);
    expect(verifyContentSignature(key, "task_2", 1_700_000_000, signature)).toBe(false);
    expect(verifyContentSignature(key, "task_1", 1_700_000_001, signature)).toBe(false);
    expect(verifyContentSignature("another-key-of-some-length", "task_1", 1_700_000_000, signature)).toBe(false);
    expect(verifyContentSignature(key, "task_1", 1_700_000_000, "short")).toBe(false);
  });

  it("builds an absolute link under the public base", () => {
    const url = new URL(contentUrl(key, "https://gw.example.com/", "task_1", 42));
    expect(url.origin).toBe("https://gw.example.com");
    expect(url.pathname).toBe("/v1/videos/generations/task_1/content");
    expect(url.searchParams.get("expires")).toBe("42");
    expect(verifyContentSignature(key, "task_1", 42, url.searchParams.get("signature")!)).toBe(true);
  });
});
