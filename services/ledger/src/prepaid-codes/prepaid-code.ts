import { createHash, randomBytes } from "node:crypto";

// Crockford's base32: no I, L, O or U, so a code read aloud or typed from paper survives.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const GROUPS = 5;
const GROUP_LENGTH = 5;
/** What a code shows of itself in lists: "GW-" and its first group. */
const PREFIX_LENGTH = 3 + GROUP_LENGTH;

/** A new clear code: "GW-" and 25 random base32 characters (125 bits) in groups of five. */
export function newPrepaidCode(): string {
  const bytes = randomBytes(GROUPS * GROUP_LENGTH);
  // 256 is a multiple of 32, so every character is equally likely.
  const characters = [...bytes].map((byte) => ALPHABET[byte % 32]);
  const groups = Array.from({ length: GROUPS }, (_, group) =>
    characters.slice(group * GROUP_LENGTH, (group + 1) * GROUP_LENGTH).join(""),
  );
  return `GW-${groups.join("-")}`;
}

/**
 * The code as typed, in the one spelling that is hashed: upper case, without spaces or
 * dashes, Crockford's look-alikes (O, I, L) read as the digits they stand for. Undefined
 * when it cannot be one of our codes.
 */
export function normalizePrepaidCode(typed: string): string | undefined {
  const length = GROUPS * GROUP_LENGTH;
  const compact = typed.toUpperCase().replace(/[\s-]/g, "");
  const body = (compact.length === length + 2 && compact.startsWith("GW") ? compact.slice(2) : compact)
    .replace(/O/g, "0")
    .replace(/[IL]/g, "1");
  return body.length === length && [...body].every((character) => ALPHABET.includes(character)) ? body : undefined;
}

/** Hex SHA-256 of the normalized code: what ledger stores and looks a code up by. */
export const prepaidCodeHash = (normalized: string): string => createHash("sha256").update(normalized).digest("hex");

export const prepaidCodePrefix = (code: string): string => code.slice(0, PREFIX_LENGTH);
