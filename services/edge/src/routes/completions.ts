import type { Caller } from "@gateway/proto/common/v1/common";
import type { CompletionServiceClient } from "@gateway/proto/router/v1/completions";
import type { Request, Response } from "express";
import { routerMetadata } from "../http/body-budget.js";
import { callRouter } from "../http/call-router.js";
import { relayCall } from "../http/relay-call.js";
import { completionRequestSchema, refuseTokenPrompts } from "../openai-wire/completion-request-schema.js";
import { renderTextChunk, renderTextCompletion } from "../openai-wire/render-completion.js";
import { toCanonicalCompletion } from "../openai-wire/to-canonical-completion.js";
import { validateBody } from "../openai-wire/validate-body.js";
import { dataFrames } from "../sse/data-frames.js";

// As for chat: long answers from slow models are normal; vendor timeouts bound real hangs.
const completionDeadlineMs = 15 * 60_000;

/** POST /v1/completions: OpenAI's legacy text completions, served by chat models. */
export function completions(service: CompletionServiceClient) {
  return async (request: Request, response: Response) => {
    refuseTokenPrompts(request.body);
    const body = validateBody(completionRequestSchema, request.body);
    const canonical = toCanonicalCompletion(body, response.locals.caller as Caller);
    if (canonical.stream) {
      const options = { deadline: Date.now() + completionDeadlineMs };
      const call = service.streamCompletion(canonical, routerMetadata(response), options);
      relayCall(
        call,
        response,
        dataFrames((chunk) => renderTextChunk(chunk, canonical.includeUsage)),
      );
      return;
    }
    const completion = await callRouter(
      service.createCompletion.bind(service),
      canonical,
      response,
      completionDeadlineMs,
    );
    response.json(renderTextCompletion(completion));
  };
}
