import type { JsonOutput } from "../answer.js";
import { statedSchema } from "../stated-schema.js";

// Claude has no JSON mode on the verified wire: callers ask for JSON in the system prompt, often
// with the schema after a "JSON Schema:" label (what the gateway writes). The simulated Claude
// obeys such an instruction the way the real one very likely does.
const asksForJson = /\b(respond|answer)\b[^.]*\bJSON\b/i;

/** The structured output a system prompt asks for, if it asks for JSON. */
export function jsonInstructionOf(system: string): JsonOutput | undefined {
  if (!asksForJson.test(system)) return undefined;
  const schema = statedSchema(system);
  return schema === undefined ? {} : { schema };
}
