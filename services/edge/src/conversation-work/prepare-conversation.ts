import type { Caller } from "@gateway/proto/common/v1/common";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import { camelCaseKeys } from "../gemini-wire/camel-case-keys.js";
import { generateContentSchema } from "../gemini-wire/gemini-request-schema.js";
import { toCanonicalGemini } from "../gemini-wire/to-canonical-gemini.js";
import { chatRequestSchema } from "../openai-wire/chat-request-schema.js";
import { toCanonicalChat, usesLegacyFunctions } from "../openai-wire/to-canonical-chat.js";
import { validateBody } from "../openai-wire/validate-body.js";
import { signaturesFromCallIds } from "../signatures-in-call-ids.js";

/** A conversation to validate and translate: the route's wire, and what the route knows besides the body. */
export type ConversationTask =
  | { wire: "chat"; caller: Caller }
  | { wire: "gemini"; caller: Caller; model: string; stream: boolean };

/** The canonical request, and what the route needs of the body to render the answer. */
export interface PreparedConversation {
  canonical: ChatRequest;
  // Chat: the client used the legacy `functions`, and is answered in them.
  legacyFunctions: boolean;
  // Gemini: thoughts are shown.
  includeThoughts: boolean;
}

/** Validates a parsed body and translates it to the canonical request, throwing the client's 400. */
export function prepareConversation(task: ConversationTask, body: unknown): PreparedConversation {
  if (task.wire === "chat") {
    const chat = validateBody(chatRequestSchema, body);
    return {
      canonical: signaturesFromCallIds(toCanonicalChat(chat, task.caller)),
      legacyFunctions: usesLegacyFunctions(chat),
      includeThoughts: false,
    };
  }
  const gemini = validateBody(generateContentSchema, camelCaseKeys(body));
  return {
    canonical: toCanonicalGemini(gemini, task.model, task.caller, task.stream),
    legacyFunctions: false,
    includeThoughts: gemini.generationConfig?.thinkingConfig?.includeThoughts ?? false,
  };
}
