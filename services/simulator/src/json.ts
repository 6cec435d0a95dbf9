/** Narrows parsed JSON to a plain object, the only shape request bodies and schemas may take. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
