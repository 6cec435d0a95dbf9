import { RequestError } from "./chat-request.js";

// xAI's Grok 4 reasoning models (4, 4 Fast and 4.1 Fast reasoning, 4.3 and later) refuse the
// penalties and stop sequences (PROTOCOLS.md, live tests), in xAI's words for reasoningEffort.

const grok4Reasoner = /^grok-4(?!.*non-reasoning)/;
const refused: [string, string][] = [
  ["presence_penalty", "presencePenalty"],
  ["frequency_penalty", "frequencyPenalty"],
  ["stop", "stop"],
];

export function checkXaiRules(model: string, body: Record<string, unknown>): void {
  if (!grok4Reasoner.test(model)) return;
  for (const [field, name] of refused) {
    if (body[field] != null) throw new RequestError(`Model ${model} does not support parameter ${name}.`, field);
  }
}
