import { echoed, invalidRequest } from "@gateway/platform";

/** The deepest nesting of objects and arrays a JSON body may have; no API we serve needs more. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** The top-level key a too-deep value sits under, if the body is an object and the key reads as JSON. */
function keyName(text: string, start: number, end: number): string | undefined {
  try {
    return JSON.parse(text.slice(start, end));
  } catch {
    return undefined;
  }
}

/**
 * Scans JSON text (decoded, not yet parsed: the very text the parser reads) for nesting deeper
 * than `limit`, in one pass and without building anything. Returns undefined when it is within
 * the limit, else the top-level key whose value goes too deep ("" when there is none to name).
 * Malformed text is left to the parser.
 */
export function tooDeep(text: string, limit = MAX_JSON_DEPTH): string | undefined {
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  // The last string completed at depth 1: in an object, the key of the value that follows it.
  let lastKey: [number, number] | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) {
        inString = false;
        if (depth === 1) lastKey = [stringStart, index + 1];
      }
    } else if (code === QUOTE) {
      inString = true;
      stringStart = index;
    } else if (OPENERS.has(code)) {
      depth += 1;
      if (depth > limit) return (lastKey && keyName(text, lastKey[0], lastKey[1])) ?? "";
    } else if (CLOSERS.has(code)) {
      depth -= 1;
    }
  }
  return undefined;
}

/** A body nested deeper than MAX_JSON_DEPTH is a 400 before it is parsed. */
export function refuseDeepJson(text: string): void {
  const key = tooDeep(text);
  if (key === undefined) return;
  throw invalidRequest(
    `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels${key ? ` under '${echoed(key)}'` : ""}.`,
    key ? echoed(key) : null,
    "json_too_deep",
  );
}
