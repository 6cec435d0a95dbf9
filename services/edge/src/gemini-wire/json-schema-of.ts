// Gemini's Schema (an OpenAPI 3.0 subset: upper-case types, `nullable`) as the JSON Schema the
// canonical form carries; router's Gemini adapter narrows it back for Gemini models.
// https://ai.google.dev/api/caching#Schema

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// OpenAPI keywords with no JSON Schema meaning.
const dropped = new Set(["nullable", "propertyOrdering", "example"]);

function typeOf(schema: Record<string, unknown>): unknown {
  const type = typeof schema.type === "string" ? schema.type.toLowerCase() : schema.type;
  if (type === "type_unspecified" || type === undefined) return undefined;
  return schema.nullable === true && typeof type === "string" ? [type, "null"] : type;
}

/** Converts a Gemini Schema, recursively, into JSON Schema. */
export function jsonSchemaOf(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (dropped.has(key) || key === "type") continue;
    if (key === "properties" && isObject(value)) {
      result.properties = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, jsonSchemaOf(inner)]));
    } else if (key === "items") {
      result.items = jsonSchemaOf(value);
    } else if (key === "anyOf" && Array.isArray(value)) {
      result.anyOf = value.map(jsonSchemaOf);
    } else {
      result[key] = value;
    }
  }
  const type = typeOf(schema);
  return type === undefined ? result : { type, ...result };
}
