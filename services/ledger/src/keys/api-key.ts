import { createHash, randomInt } from "node:crypto";

const KEY_PREFIX = "sk-gw-";
const RANDOM_LENGTH = 40;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** How much of a key is stored and shown so people can tell their keys apart. */
const SHOWN_PREFIX_LENGTH = 12;

/** A new clear API key: `sk-gw-` and 40 base62 characters (about 238 bits) from the CSPRNG. */
export function generateApiKey(): string {
  let random = "";
  // randomInt is uniform over the alphabet, unlike `byte % 62`.
  for (let index = 0; index < RANDOM_LENGTH; index += 1) random += BASE62[randomInt(BASE62.length)];
  return KEY_PREFIX + random;
}

/** Hex SHA-256 of the full key: what the ledger stores and what edge sends to ResolveKey. */
export const hashApiKey = (apiKey: string): string => createHash("sha256").update(apiKey).digest("hex");

export const apiKeyPrefix = (apiKey: string): string => apiKey.slice(0, SHOWN_PREFIX_LENGTH);

export const isKeyHash = (value: string): boolean => /^[0-9a-f]{64}$/.test(value);
