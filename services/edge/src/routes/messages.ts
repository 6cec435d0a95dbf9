import type { Caller } from "@gateway/proto/common/v1/common";
import type { RouterServiceClient } from "@gateway/proto/router/v1/router";
import type { NextFunction, Request, Response } from "express";
import { anthropicErrorBody } from "../anthropic-wire/anthropic-errors.js";
import { MessageStreamEvents } from "../anthropic-wire/message-stream-events.js";
import { countTokensRequestSchema, messagesRequestSchema } from "../anthropic-wire/messages-request-schema.js";
import { renderMessage } from "../anthropic-wire/render-message.js";
import { betaFeatures, countTokensToCanonical, messagesToCanonical } from "../anthropic-wire/to-canonical-messages.js";
import { routerMetadata } from "../http/body-budget.js";
import { callRouter } from "../http/call-router.js";
import { relayCall } from "../http/relay-call.js";
import { speakErrorsAs } from "../http/send-error.js";
import { validateBody } from "../openai-wire/validate-body.js";
import {
  carryingSignaturesInCallIds,
  signaturesFromCallIds,
  signaturesIntoCallIds,
} from "../signatures-in-call-ids.js";
import { messageEventFrames } from "../sse/message-event-frames.js";

// As for chat: long answers from slow models are normal; vendor timeouts bound real hangs.
const messagesDeadlineMs = 15 * 60_000;
const countTokensDeadlineMs = 60_000;

/** Whether a request speaks Anthropic's API: its own paths, or a shared one (/v1/models) with anthropic-version. */
export const speaksAnthropic = (request: Request) =>
  request.originalUrl.startsWith("/v1/messages") || request.headers["anthropic-version"] !== undefined;

const anthropicErrors = speakErrorsAs(anthropicErrorBody);

/**
 * Mounted before authentication on Anthropic's paths: every error of the request, a refused key
 * included, is written in Anthropic's shape, and the answer names its request as Anthropic's do.
 */
export function anthropicWireFormat(request: Request, response: Response, next: NextFunction) {
  if (!speaksAnthropic(request)) return next();
  response.setHeader("request-id", response.locals.requestId as string);
  anthropicErrors(request, response, next);
}

/** POST /v1/messages: Anthropic's Messages API, served by every chat model. */
export function createMessage(router: RouterServiceClient) {
  return async (request: Request, response: Response) => {
    const body = validateBody(messagesRequestSchema, request.body);
    const caller = response.locals.caller as Caller;
    const canonical = signaturesFromCallIds(
      messagesToCanonical(body, caller, betaFeatures(request.headers["anthropic-beta"])),
    );
    if (canonical.stream) {
      const call = router.streamChatCompletion(canonical, routerMetadata(response), {
        deadline: Date.now() + messagesDeadlineMs,
      });
      const frames = messageEventFrames(new MessageStreamEvents(body.model), caller.requestId);
      relayCall(call, response, carryingSignaturesInCallIds(frames));
      return;
    }
    const completion = await callRouter(
      router.createChatCompletion.bind(router),
      canonical,
      response,
      messagesDeadlineMs,
    );
    response.json(renderMessage(signaturesIntoCallIds(completion), body.model));
  };
}

/** POST /v1/messages/count_tokens: Claude's own count for Claude models, the gateway's estimate otherwise. */
export function countMessageTokens(router: RouterServiceClient) {
  return async (request: Request, response: Response) => {
    const body = validateBody(countTokensRequestSchema, request.body);
    const caller = response.locals.caller as Caller;
    const canonical = signaturesFromCallIds(
      countTokensToCanonical(body, caller, betaFeatures(request.headers["anthropic-beta"])),
    );
    const count = await callRouter(router.countChatTokens.bind(router), canonical, response, countTokensDeadlineMs);
    response.json({ input_tokens: count.inputTokens });
  };
}
