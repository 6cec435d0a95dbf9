import { describe, expect, it } from "vitest";
import { statedSchema } from "./stated-schema.js";

const schema = { type: "object", properties: { note: { type: "string", description: 'a "quoted" }' } } };

describe("statedSchema", () => {
  it("reads the object after the label, whatever follows it on the next line", () => {
    const text = `JSON schema:\n${JSON.stringify(schema)}\nYou MUST answer with a JSON object that matches the JSON schema above.`;
    expect(statedSchema(text)).toEqual(schema);
  });

  it("takes the last labelled object that parses, and none when none does", () => {
    const other = { type: "object", properties: {} };
    expect(statedSchema(`JSON Schema: ${JSON.stringify(schema)}\n\nJSON Schema:\n${JSON.stringify(other)}`)).toEqual(
      other,
    );
    expect(statedSchema(`JSON Schema: ${JSON.stringify(schema)} then JSON Schema: {not json}`)).toEqual(schema);
    expect(statedSchema("JSON schema: {unclosed")).toBeUndefined();
    expect(statedSchema("Answer in JSON.")).toBeUndefined();
  });
});
