import { generateSync } from "json-schema-faker";
import { isRecord } from "./json.js";

// A schema may ask for a billion items; the simulator answers with at most this many.
const largestSize = 64;
const sizeKeywords = new Set([
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
]);
// Keywords whose values are data or names, never schemas to walk.
const literalKeywords = new Set(["enum", "const", "default", "examples", "required", "dependentRequired"]);
const schemaMaps = new Set(["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"]);
// A schema with any of these constrains its value beyond its type, so the generator decides it.
const constraining = [
  "$ref",
  "const",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "prefixItems",
  "contains",
  "properties",
  "required",
  "minProperties",
  "additionalProperties",
  "patternProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
];

/**
 * A value satisfying a JSON Schema (or Gemini's OpenAPI-style subset), the same for the same
 * schema and seed. Unconstrained values read like the simulator's other answers (`sample-<name>`,
 * 1, true, the first enum member); everything else is json-schema-faker's. Never throws: a schema
 * it cannot satisfy gets the plainest value of its type.
 */
export function sampleFromSchema(schema: unknown, seed: number): unknown {
  try {
    return generateSync(readable(schema, "value", false) as boolean | Record<string, unknown>, {
      seed,
      alwaysFakeOptionals: true,
      useDefaultValue: true,
      maxDefaultItems: 2,
      refDepthMax: 3,
      maxDepth: 128,
    });
  } catch {
    return plainValue(schema, "") ?? null;
  }
}

/**
 * Copies a schema with sizes capped, OpenAPI's upper-case types and `nullable` made JSON Schema,
 * and a readable `default` on every value the schema leaves free. Items that must be unique get
 * no defaults, which would all be equal.
 */
function readable(schema: unknown, name: string, unique: boolean): unknown {
  if (!isRecord(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (sizeKeywords.has(keyword) && typeof value === "number") copy[keyword] = Math.min(value, largestSize);
    else if (keyword === "type") copy[keyword] = lowerCaseType(value);
    else if (literalKeywords.has(keyword)) copy[keyword] = value;
    else if (schemaMaps.has(keyword) && isRecord(value)) copy[keyword] = readableMap(value, unique);
    else if (Array.isArray(value)) copy[keyword] = value.map((entry) => readable(entry, name, unique));
    else copy[keyword] = readable(value, name, unique || (keyword === "items" && schema.uniqueItems === true));
  }
  if (copy.nullable === true && typeof copy.type === "string") copy.type = [copy.type, "null"];
  delete copy.nullable;
  const free = unique ? undefined : freeValue(copy, name);
  if (free !== undefined) copy.default = free;
  return copy;
}

function readableMap(map: Record<string, unknown>, unique: boolean): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(map)) copy[name] = readable(schema, name, unique);
  return copy;
}

function lowerCaseType(type: unknown): unknown {
  if (typeof type === "string") return type.toLowerCase();
  return Array.isArray(type) ? type.map((entry) => (typeof entry === "string" ? entry.toLowerCase() : entry)) : type;
}

/** The readable value of a schema that constrains nothing but its type, if it is one. */
function freeValue(schema: Record<string, unknown>, name: string): unknown {
  if (schema.default !== undefined) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum.length > 0 ? schema.enum[0] : undefined;
  if (constraining.some((keyword) => schema[keyword] !== undefined)) return undefined;
  return plainValue(schema, `sample-${name}`);
}

/** The simplest value of the schema's type (`text` for strings); undefined when it names none. */
function plainValue(schema: unknown, text: string): unknown {
  if (!isRecord(schema)) return undefined;
  switch (firstType(schema.type) ?? (isRecord(schema.properties) ? "object" : undefined)) {
    case "string":
      return text;
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    case "null":
      return null;
    default:
      return undefined;
  }
}

// A type may be a list such as ["string", "null"]; the first real type decides.
function firstType(type: unknown): string | undefined {
  const first = Array.isArray(type) ? type.find((entry) => entry !== "null") : type;
  return typeof first === "string" ? first.toLowerCase() : undefined;
}
