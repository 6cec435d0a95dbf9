import { describe, expect, it } from "vitest";
import { decryptResource, encryptResource } from "./resource-cipher.js";

const apiV3Key = "0123456789abcdefghijklmnopqrstuv";
const plaintext = '{"out_trade_no":"TOPUP0001","amount":{"total":100,"currency":"CNY"}}';

// Made with Python's cryptography (AESGCM) from the key, nonce, AAD and plaintext above.
const pythonVector = {
  algorithm: "AEAD_AES_256_GCM" as const,
  nonce: "9a8b7c6d5e4f",
  associated_data: "transaction",
  ciphertext:
    "UGjZ5vYVg4EeqUG9wfnSmVo9AayfPrToLnNnDNCu8pOoSGSNxkaJ4MdZrCNGzGkKjJ5ezu6DnduZ+otpTFUqUdiJ25nrReNt0lKgYF7yzOZkLBCn",
};

describe("the AES-256-GCM resource", () => {
  it("decrypts a resource another implementation encrypted", () => {
    expect(decryptResource(apiV3Key, pythonVector)).toBe(plaintext);
  });

  it("round-trips with a fresh 12-byte nonce", () => {
    const resource = encryptResource(apiV3Key, plaintext, "transaction");
    expect(Buffer.byteLength(resource.nonce)).toBe(12);
    expect(decryptResource(apiV3Key, resource)).toBe(plaintext);
  });

  it("refuses another key, and any altered ciphertext, nonce or associated data", () => {
    const flipped = Buffer.from(pythonVector.ciphertext, "base64");
    flipped[3] = (flipped[3] ?? 0) ^ 1;
    for (const [key, resource] of [
      ["vutsrqponmlkjihgfedcba9876543210", pythonVector],
      [apiV3Key, { ...pythonVector, ciphertext: flipped.toString("base64") }],
      [apiV3Key, { ...pythonVector, nonce: "9a8b7c6d5e40" }],
      [apiV3Key, { ...pythonVector, associated_data: "certificate" }],
      [apiV3Key, { ...pythonVector, ciphertext: "AAAA" }],
      ["short", pythonVector],
    ] as const) {
      expect(decryptResource(key, resource)).toBeUndefined();
    }
  });
});
