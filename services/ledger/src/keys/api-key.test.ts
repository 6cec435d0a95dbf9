import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { apiKeyPrefix, generateApiKey, hashApiKey, isKeyHash } from "./api-key.js";

describe("API keys", () => {
  it("are sk-gw- and 40 base62 characters, different every time", () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) expect(key).toMatch(/^sk-gw-[0-9A-Za-z]{40}$/);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("use the whole alphabet", () => {
    const characters = new Set(Array.from({ length: 100 }, generateApiKey).flatMap((key) => [...key.slice(6)]));
    expect(characters.size).toBe(62);
  });

  it("hash to the hex SHA-256 of the full key", () => {
    const key = "sk-gw-0123456789abcdefghijABCDEFGHIJ0123456789";
    expect(hashApiKey(key)).toBe(createHash("sha256").update(key).digest("hex"));
    expect(isKeyHash(hashApiKey(key))).toBe(true);
    expect(isKeyHash(key)).toBe(false);
    expect(isKeyHash(hashApiKey(key).toUpperCase())).toBe(false);
  });

  it("show only their first 12 characters", () => {
    expect(apiKeyPrefix("sk-gw-abcdefghijklmnop")).toBe("sk-gw-abcdef");
  });
});
