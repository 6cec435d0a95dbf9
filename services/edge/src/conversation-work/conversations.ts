import type { Request } from "express";
import { deferredJsonBody } from "../http/json-body.js";
import type { ChatCall } from "./chat-client.js";
import type { ConversationWorkers } from "./conversation-workers.js";
import { type ConversationTask, prepareConversation } from "./prepare-conversation.js";

/** A conversation ready for router, and what its route renders the answer with. */
export interface RouterBound {
  call: ChatCall;
  stream: boolean;
  includeUsage: boolean;
  legacyFunctions: boolean;
  includeThoughts: boolean;
}

export type PrepareConversation = (request: Request, task: ConversationTask) => Promise<RouterBound>;

/**
 * Validates and translates a request's conversation: in place when its body was parsed, in a
 * worker when the body was large enough to be left as bytes (`jsonBody`'s `deferAboveValues`),
 * so small requests keep their path and no large one holds the shared event loop.
 */
export const conversations =
  (workers: ConversationWorkers): PrepareConversation =>
  async (request, task) => {
    const bytes = deferredJsonBody(request);
    if (bytes) {
      const { encoded, ...rendering } = await workers.prepare(task, bytes);
      return { call: encoded, ...rendering };
    }
    const { canonical, legacyFunctions, includeThoughts } = prepareConversation(task, request.body);
    const { stream, includeUsage } = canonical;
    return { call: canonical, stream, includeUsage, legacyFunctions, includeThoughts };
  };
