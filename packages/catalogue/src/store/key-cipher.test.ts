import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { KeyCipher, maskKey } from "./key-cipher.js";

describe("the channel key cipher", () => {
  const cipher = new KeyCipher(randomBytes(32).toString("base64"));

  it("opens what it sealed for the same channel only", () => {
    const sealed = cipher.seal("openai-main", "sk-proj-secret-1234");
    expect(sealed.toString("latin1")).not.toContain("sk-proj-secret");
    expect(cipher.open("openai-main", sealed)).toBe("sk-proj-secret-1234");
    expect(() => cipher.open("openai-other", sealed)).toThrow();
    expect(() => new KeyCipher(randomBytes(32).toString("hex")).open("openai-main", sealed)).toThrow();
  });

  it("seals the same key differently each time", () => {
    expect(cipher.seal("c", "sk-same").equals(cipher.seal("c", "sk-same"))).toBe(false);
  });

  it("takes 32 bytes only", () => {
    expect(() => new KeyCipher(randomBytes(16).toString("base64"))).toThrow(/32 bytes/);
    expect(() => new KeyCipher("a".repeat(64))).not.toThrow();
  });

  it("masks a key to its prefix and last four characters", () => {
    expect(maskKey("sk-proj-abcdefghijklmnop1234")).toBe("sk-…1234");
    expect(maskKey("AIzaSyA0123456789abcdef")).toBe("…cdef");
    expect(maskKey("short")).toBe("…");
  });
});
