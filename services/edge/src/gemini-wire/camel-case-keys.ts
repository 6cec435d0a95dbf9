// Google's APIs take snake_case field names as well as camelCase (`system_instruction`,
// `generation_config`, `inline_data`), and its REST examples use both. Requests are read in
// camelCase, so keys are converted first; maps that hold the client's own names are left alone.

/** Fields whose value is the client's data (arguments, results, schemas, labels), not Google's fields. */
const opaqueFields = new Set([
  "args",
  "response",
  "parameters",
  "parametersJsonSchema",
  "responseSchema",
  "responseJsonSchema",
  "labels",
]);

const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/** The value with every field name of Google's request shapes in camelCase. */
export function camelCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCaseKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      const name = camelCase(key);
      return [name, opaqueFields.has(name) ? inner : camelCaseKeys(inner)];
    }),
  );
}
