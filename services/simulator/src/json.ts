/** Narrows parsed JSON to a plain object, the only shape request bodies and schemas may take. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The JSON object opening at `start`, found by matching its braces outside strings, and where it
 * ends; undefined when none opens there, it does not parse, or it runs past `limit` characters.
 */
export function jsonObjectAt(
  text: string,
  start = 0,
  limit = Number.POSITIVE_INFINITY,
): { value: Record<string, unknown>; end: number } | undefined {
  if (text[start] !== "{") return undefined;
  const last = Math.min(text.length, start + limit);
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = start; index < last; index++) {
    const character = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === "\\") escaped = true;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === "{") depth++;
    else if (character === "}" && --depth === 0) {
      const value = parsedObject(text.slice(start, index + 1));
      return value && { value, end: index + 1 };
    }
  }
  return undefined;
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
