import { once } from "node:events";
import { type RequestFacts, UsageOutcome } from "@gateway/billing";
import {
  callCancellation,
  GatewayError,
  inSpan,
  runInCallContext,
  sendHeadersNow,
  toGrpcError,
} from "@gateway/platform";
import type { Usage } from "@gateway/proto/router/v1/chat";
import type { RelayResponseReply, RelayResponseRequest } from "@gateway/proto/router/v1/responses_relay";
import type { ServerWritableStream, ServiceError } from "@grpc/grpc-js";
import { postResponses, type ResponsesAnswer } from "../adapters/openai-responses/responses-relay-call.js";
import {
  failureBeforeOutput,
  opensStream,
  sseEvents,
  streamErrorEvent,
  terminalResponse,
} from "../adapters/openai-responses/responses-sse.js";
import { usageOfResponse } from "../adapters/openai-responses/responses-usage.js";
import { recordResponseModel } from "../metrics/gen-ai-attributes.js";
import { responsesAnswerLog } from "../request-log/answer-bodies.js";
import { responsesRequestLog } from "../request-log/request-bodies.js";
import { type AdmittedRelay, admitRelay } from "./admit-relay.js";
import { sendHeadersBeforeVendor } from "./call-headers.js";
import { publishUsage } from "./publish-usage.js";
import { callWithFailover } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** One attempt's answer, read as far as a failure can still go to another channel. */
type Opened =
  | { kind: "refused"; answer: Extract<ResponsesAnswer, { refused: true }> }
  | { kind: "json"; status: number; contentType: string; bytes: Buffer }
  | {
      kind: "stream";
      status: number;
      contentType: string;
      events: AsyncIterator<Buffer>;
      // The events read before the relay answers: the opening ones and the first output (or the end).
      opening: Buffer[];
    };

async function readAll(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

/**
 * Posts to the vendor and reads a JSON answer whole, or a stream up to its first output: a failure
 * until then (an `error` event right after the opening ones included) goes to the next attempt
 * (nothing reached the client), after it never.
 */
function openRelay(deps: RouterDependencies, request: RelayResponseRequest, facts: RequestFacts, signal: AbortSignal) {
  return callWithFailover<Opened, RelayResponseRequest>(deps, request, facts, signal, async (call) => {
    const answer = await postResponses(call);
    if (answer.refused) return { kind: "refused", answer };
    const { status, contentType } = answer;
    if (!contentType.includes("text/event-stream"))
      return { kind: "json", status, contentType, bytes: await readAll(answer.body) };
    const events = sseEvents(answer.body)[Symbol.asyncIterator]();
    const opening: Buffer[] = [];
    for (let next = await events.next(); !next.done; next = await events.next()) {
      const failure = failureBeforeOutput(next.value);
      if (failure) {
        await events.return?.(undefined);
        throw failure;
      }
      opening.push(next.value);
      if (!opensStream(next.value)) break;
    }
    return { kind: "stream", status, contentType, events, opening };
  });
}

/** What the relay saw pass, so usage and the request log are reported however it ends. */
class RelayTally {
  usage: Usage | undefined;
  final: unknown;
  // Streamed deltas: about a token each, what is billed (estimated) when the vendor reported no usage.
  deltas = 0;
  wroteOutput = false;
  last: Buffer | undefined;
  refusal: GatewayError | undefined;

  constructor(private readonly promptEstimate: number) {}

  sawResponse(response: unknown) {
    this.final = response;
    this.usage = usageOfResponse(response) ?? this.usage;
  }

  billed(): { usage: Usage; estimated: boolean } {
    if (this.usage) return { usage: this.usage, estimated: false };
    const promptTokens = this.promptEstimate;
    return {
      usage: { promptTokens, completionTokens: this.deltas, totalTokens: promptTokens + this.deltas },
      estimated: true,
    };
  }
}

const deltaEvent = /^event: response\.[a-z_.]*delta\r?\n/;

async function relay(
  deps: RouterDependencies,
  request: RelayResponseRequest,
  { facts }: AdmittedRelay,
  tally: RelayTally,
  signal: AbortSignal,
  write: (reply: RelayResponseReply) => Promise<void>,
): Promise<void> {
  const opened = await openRelay(deps, request, facts, signal);
  recordResponseModel(facts.model.id);
  if (opened.kind === "refused") {
    const { status, contentType, bytes, error } = opened.answer;
    tally.refusal = error;
    await write({ head: { status, contentType } });
    await write({ chunk: bytes });
    return;
  }
  await write({ head: { status: opened.status, contentType: opened.contentType } });
  if (opened.kind === "json") {
    try {
      tally.sawResponse(JSON.parse(opened.bytes.toString("utf8")));
    } catch {
      // Relayed all the same: the client reads the vendor's answer, the gateway bills an estimate.
    }
    await write({ chunk: opened.bytes });
    tally.wroteOutput = true;
    return;
  }
  deps.metrics.firstTokenArrived(facts);
  const pass = async (event: Buffer) => {
    const response = terminalResponse(event);
    if (response !== undefined) tally.sawResponse(response);
    else if (deltaEvent.test(event.toString("latin1", 0, 64))) tally.deltas += 1;
    await write({ chunk: event });
    tally.wroteOutput = true;
    tally.last = event;
  };
  for (const event of opened.opening) await pass(event);
  for (let next = await opened.events.next(); !next.done; next = await opened.events.next()) await pass(next.value);
  if (tally.final !== undefined) await write({ finalResponse: Buffer.from(JSON.stringify(tally.final)) });
}

function outcomeOf(failure: unknown, signal: AbortSignal, tally: RelayTally): UsageOutcome {
  if (signal.aborted) return UsageOutcome.USAGE_OUTCOME_CLIENT_CANCELLED;
  if (tally.refusal) return UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR;
  if (failure === undefined) return UsageOutcome.USAGE_OUTCOME_OK;
  return tally.wroteOutput ? UsageOutcome.USAGE_OUTCOME_STREAM_BROKEN : UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR;
}

function report(
  deps: RouterDependencies,
  admitted: AdmittedRelay,
  tally: RelayTally,
  outcome: UsageOutcome,
  failure: unknown,
) {
  const error = tally.refusal ?? failure;
  const nothingServed = outcome === UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR;
  const { usage, estimated } = nothingServed ? { usage: undefined, estimated: false } : tally.billed();
  const clientSawError = error !== undefined && outcome !== UsageOutcome.USAGE_OUTCOME_CLIENT_CANCELLED;
  publishUsage(
    deps,
    admitted.facts,
    { usage, estimated, outcome, ...(error instanceof GatewayError && { error }) },
    {
      request: () => responsesRequestLog(admitted.fields),
      answer: () => (tally.final === undefined ? undefined : responsesAnswerLog(tally.final)),
      ...(clientSawError && { error }),
    },
  );
}

/**
 * RelayResponse: a Responses request for a model its vendor serves on the Responses API goes
 * there as sent and its answer comes back as written, with HTTP/2 flow control all the way; for
 * any other model the call answers `not_relayed` at once and edge translates the request onto chat.
 * Usage is reported once however it ends; a vendor stream that breaks after output ends with
 * OpenAI's `error` event, so the call itself ends well and edge stays a pipe of bytes.
 */
export function relayResponse(deps: RouterDependencies) {
  // The promise tells a draining server when the call's usage is reported.
  return (call: ServerWritableStream<RelayResponseRequest, RelayResponseReply>): Promise<void> => {
    const { signal, answered } = callCancellation(call);
    return runInCallContext(call.metadata, async () => {
      let admitted: AdmittedRelay | undefined;
      try {
        admitted = await admitRelay(deps, call.request);
      } catch (error) {
        answered();
        call.emit("error", toGrpcError(error) as ServiceError);
        return;
      }
      if (!admitted) {
        answered();
        call.write({ notRelayed: {} });
        call.end();
        return;
      }
      const { facts } = admitted;
      await sendHeadersBeforeVendor({ sendHeadersNow: (metadata) => sendHeadersNow(call, metadata) }, facts);
      const tally = new RelayTally(admitted.promptEstimate);
      const write = async (reply: RelayResponseReply) => {
        if (!call.write(reply)) await once(call, "drain");
      };
      await inSpan("router.relay_response", { "gateway.model": facts.model.id }, async () => {
        let failure: unknown;
        try {
          await relay(deps, call.request, admitted, tally, signal, write);
        } catch (error) {
          failure = error;
        }
        report(deps, admitted, tally, outcomeOf(failure, signal, tally), failure);
        if (signal.aborted) return;
        answered();
        if (failure === undefined) call.end();
        else if (tally.wroteOutput && facts.stream) {
          const shown = failure instanceof GatewayError ? failure : undefined;
          call.write({
            chunk: streamErrorEvent(
              tally.last,
              shown?.code ?? "server_error",
              shown?.message ?? "The model provider failed while streaming.",
            ),
          });
          call.end();
        } else call.emit("error", toGrpcError(failure) as ServiceError);
      });
    }).catch((error: unknown) => deps.logger.error({ err: error }, "relay handler failed"));
  };
}
