import type { JsonOutput } from "../answer.js";
import { isRecord } from "../json.js";

// Claude has no JSON mode on the verified wire: callers ask for JSON in the system prompt, often
// with the schema after a "JSON Schema:" label (what the gateway writes). The simulated Claude
// obeys such an instruction the way the real one very likely does.
const asksForJson = /\brespond\b[^.]*\bJSON\b/i;
const schemaLabel = /JSON Schema:\s*/gi;

/** The structured output a system prompt asks for, if it asks for JSON. */
export function jsonInstructionOf(system: string): JsonOutput | undefined {
  if (!asksForJson.test(system)) return undefined;
  let schema: unknown;
  // The last labelled object that parses is the schema; it runs to the end of the prompt or its paragraph.
  for (const match of system.matchAll(schemaLabel)) {
    const rest = system.slice(match.index + match[0].length);
    schema = parseObject(rest) ?? parseObject(rest.split(/\n\s*\n/, 1)[0]!) ?? schema;
  }
  return schema === undefined ? {} : { schema };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
