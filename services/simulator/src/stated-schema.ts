import type { ConversationMessage } from "./answer.js";
import { jsonObjectAt } from "./json.js";

// Clients without structured outputs state the schema in the prompt after a label: the AI SDK's
// injectJsonInstruction writes "JSON schema:\n{...}\nYou MUST answer with a JSON object that
// matches the JSON schema above.", the gateway's Claude instruction "JSON Schema:\n{...}".
const schemaLabel = /JSON Schema:\s*/gi;

/** The schema a text states, if any: the last labelled object that parses, whatever follows it. */
export function statedSchema(text: string): Record<string, unknown> | undefined {
  let schema: Record<string, unknown> | undefined;
  for (const match of text.matchAll(schemaLabel)) {
    schema = jsonObjectAt(text, match.index + match[0].length)?.value ?? schema;
  }
  return schema;
}

/** The schema the latest message that states one states, as a model told to answer in JSON reads it. */
export function schemaStatedIn(messages: ConversationMessage[]): Record<string, unknown> | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const schema = statedSchema(messages[index]!.parts.join("\n"));
    if (schema) return schema;
  }
  return undefined;
}
