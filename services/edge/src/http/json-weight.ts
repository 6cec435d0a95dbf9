import { payloadTooLarge } from "@gateway/platform";

/**
 * The most values (objects, arrays, and the strings, numbers and literals in them) a JSON body
 * may hold. A real request stays far below: Anthropic's own ceiling of 100,000 messages is
 * ~300,000 values, OpenAI's 300k-token embedding request as token ids ~300,000. Each value
 * costs edge ~100 bytes of heap through parsing, validation and conversion, and ~4 µs of CPU
 * on the event loop every tenant shares (650,000 empty messages: ~200 MB and 2.4 s).
 */
export const MAX_JSON_VALUES = 500_000;

/**
 * What a value weighs beyond its text in the body budget's units: a body byte of text costs
 * edge ~7 bytes of heap from reading to sending, a value ~100 (measured on chat bodies of
 * many empty messages, content parts and numbers; docs/perf/hot-path.md).
 */
export const VALUE_WEIGHT_BYTES = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const BRACE = 0x7b;
const BRACKET = 0x5b;

/**
 * Counts the values in JSON text (UTF-8 bytes, not yet parsed) in one pass, building nothing:
 * each container and each element after a comma, plus the top value. Malformed text is left
 * to the parser; the count is then only an estimate, which is all a bound needs.
 */
export function countJsonValues(bytes: Uint8Array): number {
  let values = 1;
  let inString = false;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === COMMA || byte === BRACE || byte === BRACKET) values += 1;
  }
  return values;
}

/** What a JSON body weighs beyond its bytes; a body past MAX_JSON_VALUES is a 413 before it is parsed. */
export function structureWeight(bytes: Uint8Array): number {
  const values = countJsonValues(bytes);
  if (values > MAX_JSON_VALUES) {
    throw payloadTooLarge(
      `The JSON body holds more than ${MAX_JSON_VALUES.toLocaleString("en")} values (objects, arrays, strings, numbers); send fewer messages or items.`,
    );
  }
  return values * VALUE_WEIGHT_BYTES;
}
