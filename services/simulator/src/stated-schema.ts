import type { ConversationMessage } from "./answer.js";
import { isRecord } from "./json.js";

// Clients without structured outputs state the schema in the prompt after a label: the AI SDK's
// injectJsonInstruction writes "JSON schema:\n{...}\nYou MUST answer with a JSON object that
// matches the JSON schema above.", the gateway's Claude instruction "JSON Schema:\n{...}".
const schemaLabel = /JSON Schema:\s*/gi;

/** The schema a text states, if any: the last labelled object that parses, whatever follows it. */
export function statedSchema(text: string): Record<string, unknown> | undefined {
  let schema: Record<string, unknown> | undefined;
  for (const match of text.matchAll(schemaLabel)) {
    schema = leadingObject(text.slice(match.index + match[0].length)) ?? schema;
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

/** The JSON object a text starts with, found by matching its braces outside strings. */
function leadingObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith("{")) return undefined;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === "\\") escaped = true;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === "{") depth++;
    else if (character === "}" && --depth === 0) return parsedObject(text.slice(0, index + 1));
  }
  return undefined;
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
