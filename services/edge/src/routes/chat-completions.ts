import type { Caller } from "@gateway/proto/common/v1/common";
import type { RouterServiceClient } from "@gateway/proto/router/v1/router";
import type { Request, Response } from "express";
import { routerMetadata } from "../http/body-budget.js";
import { callRouter } from "../http/call-router.js";
import { relayCall } from "../http/relay-call.js";
import { chatRequestSchema } from "../openai-wire/chat-request-schema.js";
import { renderChunk, renderCompletion } from "../openai-wire/render-chat.js";
import { toCanonicalChat, usesLegacyFunctions } from "../openai-wire/to-canonical-chat.js";
import { validateBody } from "../openai-wire/validate-body.js";
import {
  carryingSignaturesInCallIds,
  signaturesFromCallIds,
  signaturesIntoCallIds,
} from "../signatures-in-call-ids.js";
import { dataFrames } from "../sse/data-frames.js";

// Generous: long answers from slow models are normal; the vendor timeouts bound real hangs.
const chatDeadlineMs = 15 * 60_000;

export function chatCompletions(router: RouterServiceClient) {
  return async (request: Request, response: Response) => {
    const body = validateBody(chatRequestSchema, request.body);
    const canonical = signaturesFromCallIds(toCanonicalChat(body, response.locals.caller as Caller));
    const options = { deadline: Date.now() + chatDeadlineMs };
    const legacyFunctions = usesLegacyFunctions(body);
    if (canonical.stream) {
      const call = router.streamChatCompletion(canonical, routerMetadata(response), options);
      relayCall(
        call,
        response,
        carryingSignaturesInCallIds(dataFrames((chunk) => renderChunk(chunk, canonical.includeUsage, legacyFunctions))),
      );
      return;
    }
    const completion = await callRouter(router.createChatCompletion.bind(router), canonical, response, chatDeadlineMs);
    response.json(renderCompletion(signaturesIntoCallIds(completion), legacyFunctions));
  };
}
