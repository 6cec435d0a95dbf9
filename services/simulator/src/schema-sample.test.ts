import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { sampleFromSchema } from "./schema-sample.js";

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

const node: Record<string, unknown> = {
  $defs: {
    Node: {
      type: "object",
      properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      required: ["value", "children"],
      additionalProperties: false,
    },
  },
  $ref: "#/$defs/Node",
};

// The shapes clients send: OpenAI strict schemas, what zod and pydantic emit, and the keywords around them.
const satisfiable: [string, unknown][] = [
  [
    "an OpenAI strict schema",
    {
      type: "object",
      properties: {
        steps: {
          type: "array",
          items: {
            type: "object",
            properties: { explanation: { type: "string" }, output: { type: ["string", "null"] } },
            required: ["explanation", "output"],
            additionalProperties: false,
          },
          minItems: 2,
        },
        final_answer: { type: "string" },
      },
      required: ["steps", "final_answer"],
      additionalProperties: false,
    },
  ],
  [
    "string formats, lengths and patterns",
    {
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        when: { type: "string", format: "date-time" },
        day: { type: "string", format: "date" },
        id: { type: "string", format: "uuid" },
        site: { type: "string", format: "uri" },
        code: { type: "string", pattern: "^[A-Z]{2}-\\d{3}$" },
        short: { type: "string", maxLength: 3 },
        long: { type: "string", minLength: 20 },
      },
      required: ["email", "when", "day", "id", "site", "code", "short", "long"],
    },
  ],
  [
    "bounded numbers",
    {
      type: "object",
      properties: {
        age: { type: "integer", minimum: 18, maximum: 21 },
        ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        step: { type: "number", multipleOf: 0.25, minimum: 2 },
      },
      required: ["age", "ratio", "step"],
    },
  ],
  [
    "enums, consts and unions",
    {
      type: "object",
      properties: {
        unit: { enum: ["c", "f"] },
        kind: { const: "weather" },
        either: {
          anyOf: [
            { type: "string", format: "ipv4" },
            { type: "integer", minimum: 5 },
          ],
        },
        exactly: { oneOf: [{ type: "boolean" }, { type: "string", maxLength: 2 }] },
        maybe: { anyOf: [{ type: "integer" }, { type: "null" }] },
      },
      required: ["unit", "kind", "either", "exactly", "maybe"],
    },
  ],
  ["a recursive $ref through $defs", node],
  [
    "draft-07 definitions and allOf",
    {
      definitions: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
      allOf: [{ $ref: "#/definitions/Point" }, { properties: { y: { type: "number" } }, required: ["y"] }],
    },
  ],
  [
    "unique and bounded arrays",
    {
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" }, minItems: 3, maxItems: 4, uniqueItems: true },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false },
      },
      required: ["tags", "pair"],
    },
  ],
  ["a map", { type: "object", additionalProperties: { type: "integer" }, minProperties: 2 }],
];

describe("sampleFromSchema", () => {
  it.each(satisfiable)("satisfies %s", (_, schema) => {
    const value = sampleFromSchema(schema, 7);
    expect(ajv.validate(schema as object, value), JSON.stringify(ajv.errors)).toBe(true);
  });

  it("gives the same value for the same seed", () => {
    for (const [, schema] of satisfiable) expect(sampleFromSchema(schema, 11)).toEqual(sampleFromSchema(schema, 11));
  });

  it("reads like the simulator's other answers where the schema leaves the value free", () => {
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" }, unit: { enum: ["c", "f"] } },
    };
    expect(sampleFromSchema(schema, 3)).toEqual({ city: "sample-city", days: 1, unit: "c" });
  });

  it("reads Gemini's OpenAPI-style schemas: upper-case types and nullable", () => {
    const schema = {
      type: "OBJECT",
      properties: { name: { type: "STRING" }, score: { type: "INTEGER", nullable: true, minimum: 3 } },
      required: ["name", "score"],
    };
    const value = sampleFromSchema(schema, 5);
    const equivalent = {
      type: "object",
      properties: { name: { type: "string" }, score: { type: ["integer", "null"], minimum: 3 } },
      required: ["name", "score"],
    };
    expect(ajv.validate(equivalent, value), JSON.stringify(ajv.errors)).toBe(true);
  });

  it("never throws, and stays small and quick, whatever the schema", () => {
    let deep: unknown = { type: "string" };
    for (let level = 0; level < 20_000; level++) deep = { type: "object", properties: { a: deep }, required: ["a"] };
    const schemas = [
      undefined,
      false,
      "not a schema",
      { type: "wibble" },
      { $ref: "#/nowhere" },
      { type: "string", pattern: "([" },
      { type: "integer", minimum: 5, maximum: 1 },
      { type: "object", required: ["q"], properties: {}, additionalProperties: false },
      { type: "array", items: { type: "string" }, minItems: 1e9 },
      { type: "array", items: { type: "string" }, maxItems: 1e9, minItems: 50 },
      { type: "string", minLength: 1e9 },
      deep,
    ];
    const started = Date.now();
    for (const schema of schemas)
      expect(JSON.stringify(sampleFromSchema(schema, 1) ?? null).length).toBeLessThan(100_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sampleFromSchema({ type: "object", properties: { a: { type: "wibble" } } }, 1)).toEqual({});
  });
});
