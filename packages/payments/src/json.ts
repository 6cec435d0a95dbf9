/** The parsed value, or undefined for text that is no JSON: callers validate it next anyway. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
