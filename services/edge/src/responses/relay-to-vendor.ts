import { fromGrpcError, type GatewayError, type Logger, serverError } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { RelayResponseReply, ResponsesRelayServiceClient } from "@gateway/proto/router/v1/responses_relay";
import { type ServiceError, status } from "@grpc/grpc-js";
import type { Request, Response } from "express";
import { routerMetadata } from "../http/body-budget.js";
import { rawJsonBody } from "../http/json-body.js";
import { copyRateLimitHeaders } from "../http/rate-limit-headers.js";
import { relayCall, type StreamRendering } from "../http/relay-call.js";
import { sendError } from "../http/send-error.js";
import { relayedResponsesSchema } from "../openai-wire/relayed-responses-schema.js";
import type { RenderedResponse } from "../openai-wire/render-response.js";
import { validateBody } from "../openai-wire/validate-body.js";
import { eventStreamHeaders } from "../sse/data-frames.js";
import type { ResponseStore } from "./response-store.js";

export interface RelayDependencies {
  relay: ResponsesRelayServiceClient;
  store: ResponseStore;
  logger: Logger;
}

// As for chat: long answers from slow models are normal; vendor timeouts bound real hangs.
const relayDeadlineMs = 15 * 60_000;
const sequenceNumber = /"sequence_number"\s*:\s*(\d+)/;

/**
 * The relayed answer written as the vendor sent it: its status and bytes, SSE events as they
 * come. When the client did not send `store: false`, the finished response is also kept in the
 * gateway's store, before the answer ends, so GET /v1/responses/{id} finds it at once.
 */
function relayedAnswer(keep: (response: RenderedResponse) => Promise<void>): StreamRendering<RelayResponseReply> {
  let streamed = false;
  let ok = false;
  let last: Buffer | undefined;
  let final: Buffer | undefined;
  const json: Buffer[] = [];
  return {
    open(first) {
      const head = first?.head;
      if (!head) return serverError();
      streamed = head.contentType.includes("text/event-stream");
      ok = head.status === 200;
      return { status: head.status, headers: streamed ? eventStreamHeaders : { "content-type": head.contentType } };
    },
    chunk(reply) {
      if (reply.finalResponse) final = reply.finalResponse;
      const bytes = reply.chunk ?? Buffer.alloc(0);
      if (streamed) last = bytes.length > 0 ? bytes : last;
      else if (ok) json.push(bytes);
      return bytes;
    },
    async close() {
      const finished = streamed ? final : ok ? Buffer.concat(json) : undefined;
      if (finished) await keep(JSON.parse(finished.toString("utf8")) as RenderedResponse);
      return "";
    },
    fail(error: GatewayError) {
      // A JSON answer whose length is out cannot be finished another way: the connection is cut.
      if (!streamed) return undefined;
      const previous = last ? sequenceNumber.exec(last.toString("utf8"))?.[1] : undefined;
      const { message, code } = error.toBody().error;
      const event = {
        type: "error",
        code: code ?? "server_error",
        message,
        param: null,
        sequence_number: previous === undefined ? 0 : Number(previous) + 1,
      };
      return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
    },
  };
}

/**
 * Offers a Responses request to router's relay and resolves true once the relay answers it;
 * false when router says the model is not served on its vendor's Responses API, and edge must
 * translate the request onto chat. The body goes as the client's bytes, checked only for what is
 * malformed (relayed-responses-schema.ts). One call decides, so a relayed model costs no extra
 * round trip, and a translated one a catalogue lookup in router.
 */
export function relayToVendor({ relay, store, logger }: RelayDependencies, request: Request, response: Response) {
  const bytes = rawJsonBody(request);
  // A body without a model the translated path's schema refuses in its own words.
  if (!bytes || typeof (request.body as { model?: unknown } | undefined)?.model !== "string") {
    return Promise.resolve(false);
  }
  const body = validateBody(relayedResponsesSchema, request.body);
  const model = body.model;
  const caller = response.locals.caller as Caller;
  const keep = async (final: RenderedResponse) => {
    if (body.store === false || typeof final?.id !== "string") return;
    // The answer is already made and billed; a storage failure is logged rather than turned into an error.
    await store
      .save(caller.accountId, { response: final, conversation: [] })
      .catch((error: unknown) => logger.warn({ err: error, response_id: final.id }, "relayed response not stored"));
  };
  return new Promise<boolean>((resolve) => {
    const call = relay.relayResponse(
      {
        caller,
        model,
        body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        stream: body?.stream === true,
      },
      routerMetadata(response),
      { deadline: Date.now() + relayDeadlineMs },
    );
    copyRateLimitHeaders(call, response);
    const ignoreErrors = () => {};
    const leave = () => {
      call.off("data", first);
      call.off("error", failed);
      call.on("error", ignoreErrors);
      call.cancel();
      resolve(true);
    };
    function failed(error: ServiceError) {
      call.off("data", first);
      response.off("close", leave);
      // A router from before the relay (a rolling upgrade) has no such call: chat serves the request, as it did.
      if (error.code === status.UNIMPLEMENTED) return resolve(false);
      sendError(response, fromGrpcError(error));
      resolve(true);
    }
    // The first reply decides; it is put back for relayCall, which then owns the call.
    function first(reply: RelayResponseReply) {
      call.off("error", failed);
      response.off("close", leave);
      call.pause();
      if (reply.notRelayed) {
        call.on("error", ignoreErrors);
        call.resume();
        resolve(false);
        return;
      }
      call.unshift(reply);
      relayCall(call, response, relayedAnswer(keep));
      call.resume();
      resolve(true);
    }
    call.once("data", first);
    call.once("error", failed);
    response.once("close", leave);
  });
}
