import { callUnary, fromGrpcError, GatewayError, invalidRequest, type Logger, notFound } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { Message, ThinkingBlock } from "@gateway/proto/router/v1/chat";
import type { ResponsesRelayServiceClient } from "@gateway/proto/router/v1/responses_relay";
import type { RouterServiceClient } from "@gateway/proto/router/v1/router";
import type { Request, Response } from "express";
import { type BodyAdmission, holdBody, routerMetadata } from "../http/body-budget.js";
import { callRouter } from "../http/call-router.js";
import { relayCall } from "../http/relay-call.js";
import {
  asksForEncryptedReasoning,
  assistantTurn,
  completionToResponse,
  newItemId,
  type RenderedResponse,
  type ResponseBase,
  responseSettings,
} from "../openai-wire/render-response.js";
import { type ResponsesRequestBody, responsesRequestSchema } from "../openai-wire/responses-request-schema.js";
import { ResponseStreamEvents } from "../openai-wire/responses-stream-events.js";
import { chatToolsOf, responsesToChat } from "../openai-wire/responses-to-chat.js";
import { validateBody } from "../openai-wire/validate-body.js";
import { relayToVendor } from "../responses/relay-to-vendor.js";
import { conversationBytes, conversationWeight, type ResponseStore } from "../responses/response-store.js";
import {
  carryingSignaturesInCallIds,
  signaturesFromCallIds,
  signaturesIntoCallIds,
} from "../signatures-in-call-ids.js";
import { responseEventFrames } from "../sse/response-event-frames.js";

// As for chat: long answers from slow models are normal; vendor timeouts bound real hangs.
const responsesDeadlineMs = 15 * 60_000;

const responseNotFound = (id: string) => notFound(`No response found with id '${id}'.`);

/**
 * The stored conversation `previous_response_id` names. A few bytes of request load up to
 * RESPONSES_MAX_STORED_BYTES: only for a model the key may use, and counted against the body
 * budget like a body (its most from before the load, then what it weighs), which bounds the
 * loads one account and one process have in flight.
 */
async function history(
  { router, store, admission }: ResponsesDependencies,
  request: Request,
  response: Response,
  body: ResponsesRequestBody,
): Promise<Message[]> {
  if (!body.previous_response_id) return [];
  const { accountId, modelGroup } = response.locals.caller as Caller;
  await callUnary(router.getModel.bind(router), { modelGroup, id: body.model }, 10_000).catch((error: unknown) => {
    throw fromGrpcError(error);
  });
  const hold = holdBody(admission, request, response, store.maxStoredBytes);
  const previous = await store.load(accountId, body.previous_response_id);
  // Loads queue at ledger: one that waited behind the account's first refusal goes no further.
  admission.unpaid.check(accountId, store.maxStoredBytes);
  hold.settle(store.maxStoredBytes, previous ? conversationWeight(previous.conversation) : 0);
  if (!previous) {
    throw new GatewayError(
      404,
      "invalid_request_error",
      "previous_response_not_found",
      `Previous response with id '${body.previous_response_id}' not found.`,
      "previous_response_id",
    );
  }
  return previous.conversation;
}

/**
 * A request that continues a stored conversation is a large one, whatever its own size: it may
 * load up to RESPONSES_MAX_STORED_BYTES here, or have the vendor bill the whole context when
 * relayed. From an account just refused for its balance it is refused as a large body is,
 * before router is asked anything: a key that cannot pay gets neither the catalogue lookups nor
 * the load, and cannot spend edge's event loop on them beside other tenants.
 */
function refuseContinuationWhileUnpaid(
  { admission, store }: ResponsesDependencies,
  request: Request,
  response: Response,
) {
  const previous = (request.body as { previous_response_id?: unknown } | undefined)?.previous_response_id;
  if (typeof previous !== "string" || previous === "") return;
  admission.unpaid.check((response.locals.caller as Caller).accountId, store.maxStoredBytes);
}

/**
 * Refuses, before any vendor is called (so nothing is billed), a response to be stored whose
 * conversation (earlier turns plus this input) is over the store's limit.
 */
function checkStorable(store: ResponseStore, conversation: readonly Message[]) {
  const bytes = conversationBytes(conversation);
  if (bytes <= store.maxStoredBytes) return;
  throw invalidRequest(
    `The input is too large to store (${bytes} bytes with the earlier turns; stored responses may hold ${store.maxStoredBytes}). Send "store": false, or a smaller input.`,
    "store",
    "input_too_large_to_store",
  );
}

export interface ResponsesDependencies {
  router: RouterServiceClient;
  // Router's relay to a vendor's own Responses API (OpenAI's models), tried first.
  relay: ResponsesRelayServiceClient;
  store: ResponseStore;
  // What the request's body counts against, which its stored conversation joins.
  admission: BodyAdmission;
  logger: Logger;
}

/**
 * POST /v1/responses: relayed to the vendor's own Responses API for the models that have it
 * (responses/relay-to-vendor.ts), served by the other chat models through the router's chat RPCs.
 */
export function createResponse(deps: ResponsesDependencies) {
  const { router, store, logger } = deps;
  return async (request: Request, response: Response) => {
    refuseContinuationWhileUnpaid(deps, request, response);
    if (await relayToVendor(deps, request, response)) return;
    const body = validateBody(responsesRequestSchema, request.body);
    const caller = response.locals.caller as Caller;
    const earlier = await history(deps, request, response, body);
    const tools = chatToolsOf(body);
    // Tools the chat path cannot offer are named rather than refused, so an agent goes on without them.
    if (tools.dropped.length > 0) response.setHeader("x-gateway-dropped-tools", tools.dropped.join(", "));
    // Before the turns are stored: a later request continues from calls with their signatures apart.
    const canonical = signaturesFromCallIds(responsesToChat(body, caller, earlier, tools));
    const base: ResponseBase = {
      id: newItemId("resp"),
      createdAt: Math.floor(Date.now() / 1000),
      model: body.model,
      settings: responseSettings(body),
      toolKinds: tools.kinds,
      encryptedReasoning: asksForEncryptedReasoning(body),
    };
    // The stored conversation leaves out instructions: OpenAI does not carry them over.
    const turns = canonical.messages.slice(body.instructions ? 1 : 0);
    if (body.store !== false) checkStorable(store, turns);
    const conversationOf = (final: RenderedResponse, thinking: readonly ThinkingBlock[]) => [
      ...turns,
      assistantTurn(final.output, thinking),
    ];
    // The answer is already made and billed; a storage failure is logged rather than turned into an error.
    const keep = async (final: RenderedResponse, thinking: readonly ThinkingBlock[]) => {
      if (body.store === false) return;
      await store
        .save(caller.accountId, { response: final, conversation: conversationOf(final, thinking) })
        .catch((error: unknown) => logger.warn({ err: error, response_id: final.id }, "response not stored"));
    };
    if (canonical.stream) {
      const events = new ResponseStreamEvents(base);
      const call = router.streamChatCompletion(canonical, routerMetadata(response), {
        deadline: Date.now() + responsesDeadlineMs,
      });
      const rendering = responseEventFrames(events, (final) => keep(final, events.signedThinking));
      relayCall(call, response, carryingSignaturesInCallIds(rendering));
      return;
    }
    const completion = await callRouter(
      router.createChatCompletion.bind(router),
      canonical,
      response,
      responsesDeadlineMs,
    );
    const rendered = completionToResponse(
      { ...base, model: completion.model || base.model },
      signaturesIntoCallIds(completion),
    );
    await keep(rendered, completion.choices[0]?.message?.thinkingBlocks ?? []);
    response.json(rendered);
  };
}

export function getResponse(store: ResponseStore) {
  return async (request: Request, response: Response) => {
    const id = String(request.params.responseId);
    const stored = await store.load((response.locals.caller as Caller).accountId, id);
    if (!stored) throw responseNotFound(id);
    response.json(stored.response);
  };
}

export function deleteResponse(store: ResponseStore) {
  return async (request: Request, response: Response) => {
    const id = String(request.params.responseId);
    if (!(await store.remove((response.locals.caller as Caller).accountId, id))) throw responseNotFound(id);
    response.json({ id, object: "response.deleted", deleted: true });
  };
}
