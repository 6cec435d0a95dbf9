import { startPiece } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { Request, Response } from "express";
import type { ChatClient } from "../conversation-work/chat-client.js";
import type { PrepareConversation } from "../conversation-work/conversations.js";
import { routerMetadata } from "../http/body-budget.js";
import { callRouter } from "../http/call-router.js";
import { relayCall } from "../http/relay-call.js";
import { renderChunk, renderCompletion } from "../openai-wire/render-chat.js";
import { carryingSignaturesInCallIds, signaturesIntoCallIds } from "../signatures-in-call-ids.js";
import { dataFrames } from "../sse/data-frames.js";

// Generous: long answers from slow models are normal; the vendor timeouts bound real hangs.
const chatDeadlineMs = 15 * 60_000;

export function chatCompletions(router: ChatClient, prepare: PrepareConversation) {
  return async (request: Request, response: Response) => {
    const caller = response.locals.caller as Caller;
    const preparing = startPiece("validation");
    const { call, stream, includeUsage, legacyFunctions } = await prepare(request, { wire: "chat", caller });
    preparing?.();
    const options = { deadline: Date.now() + chatDeadlineMs };
    if (stream) {
      const relayed = router.streamChatCompletion(call, routerMetadata(response), options);
      relayCall(
        relayed,
        response,
        carryingSignaturesInCallIds(dataFrames((chunk) => renderChunk(chunk, includeUsage, legacyFunctions))),
      );
      return;
    }
    const completion = await callRouter(router.createChatCompletion.bind(router), call, response, chatDeadlineMs);
    const rendering = startPiece("translation");
    const rendered = renderCompletion(signaturesIntoCallIds(completion), legacyFunctions);
    rendering?.();
    response.json(rendered);
  };
}
