import { once } from "node:events";
import { type RequestFacts, UsageOutcome } from "@gateway/billing";
import type { CatalogueModel } from "@gateway/catalogue";
import {
  callCancellation,
  GatewayError,
  inSpan,
  runInCallContext,
  sendHeadersNow,
  toGrpcError,
} from "@gateway/platform";
import type { ChatChunk, ChatRequest, ChunkChoice, Usage } from "@gateway/proto/router/v1/chat";
import type { CompletionChoice } from "@gateway/proto/router/v1/completions";
import type { ServerWritableStream, ServiceError } from "@grpc/grpc-js";
import { recordResponseModel } from "../metrics/gen-ai-attributes.js";
import { streamAnswerBudget } from "../request-log/request-log.js";
import { StreamAnswer } from "../request-log/stream-answer.js";
import { countChunkTokens, estimatePromptTokens } from "../usage/token-estimate.js";
import { sendHeadersBeforeVendor } from "./call-headers.js";
import { publishUsage } from "./publish-usage.js";
import { answeredModel, callWithFailover } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** What one vendor stream has delivered so far, so usage can be reported however it ends. */
export class StreamTally {
  deliveredTokens = 0;
  wroteAnything = false;
  vendorUsage: Usage | undefined;

  constructor(
    private readonly request: ChatRequest,
    private readonly model: CatalogueModel,
  ) {}

  usage(): { usage: Usage; estimated: boolean } {
    if (this.vendorUsage) return { usage: this.vendorUsage, estimated: false };
    const promptTokens = estimatePromptTokens(this.request, this.model);
    const completionTokens = this.deliveredTokens;
    return { usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens }, estimated: true };
  }
}

// Counts a vendor may leave out; one left out by every stream stays unset, as the vendor sent it.
const optionalCounts = ["cachedTokens", "cacheCreationTokens", "reasoningTokens"] as const;
// How the vendor says it served the call (tier, speed, region): surcharges are billed as served.
const servedAs = ["serviceTier", "speed", "inferenceGeo"] as const;

/**
 * The usage of several streams served as one request (a text completion with several prompts),
 * with every count the vendor reported: the ledger prices cache reads and writes at their own rates.
 */
export function combinedUsage(tallies: readonly StreamTally[]): { usage: Usage; estimated: boolean } {
  const usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let estimated = false;
  for (const tally of tallies) {
    const part = tally.usage();
    usage.promptTokens += part.usage.promptTokens;
    usage.completionTokens += part.usage.completionTokens;
    usage.totalTokens += part.usage.totalTokens;
    for (const field of optionalCounts) {
      const count = part.usage[field];
      if (count !== undefined) usage[field] = (usage[field] ?? 0) + count;
    }
    for (const field of servedAs) usage[field] ??= part.usage[field];
    estimated ||= part.estimated;
  }
  return { usage, estimated };
}

export type ChunkIdentity = Pick<ChatChunk, "id" | "created" | "model">;

/**
 * Opens the vendor stream and waits for its first chunk; failures up to here are retried
 * (nothing has reached the client yet), failures after it are not.
 */
async function openStream(deps: RouterDependencies, request: ChatRequest, facts: RequestFacts, signal: AbortSignal) {
  return callWithFailover(deps, request, facts, signal, async (call) => {
    const iterator = deps.adapterFor(call.channel).stream(call)[Symbol.asyncIterator]();
    const first = await iterator.next();
    return { iterator, first };
  });
}

async function* chunksOf(opened: Awaited<ReturnType<typeof openStream>>): AsyncGenerator<ChatChunk> {
  let next = opened.first;
  while (!next.done) {
    yield next.value;
    next = await opened.iterator.next();
  }
}

/**
 * Streams one canonical chat request, passing each chunk with choices (usage stripped, the
 * gateway's identity filled in) to `emit` and counting it in the tally. Resolves with the
 * stream's identity, undefined when the vendor sent nothing.
 */
export async function pumpChatStream(
  deps: RouterDependencies,
  request: ChatRequest,
  facts: RequestFacts,
  tally: StreamTally,
  signal: AbortSignal,
  emit: (chunk: ChatChunk) => Promise<void>,
): Promise<ChunkIdentity | undefined> {
  const opened = await openStream(deps, request, facts, signal);
  deps.metrics.firstTokenArrived(facts);
  let identity: ChunkIdentity | undefined;
  for await (const chunk of chunksOf(opened)) {
    if (!identity) {
      identity = {
        id: chunk.id || `chatcmpl-${facts.caller.requestId}`,
        created: chunk.created || Math.floor(facts.startedAt / 1000),
        model: answeredModel(chunk.model, facts),
      };
      recordResponseModel(identity.model);
    }
    if (chunk.usage) tally.vendorUsage = chunk.usage;
    if (chunk.choices.length === 0) continue;
    tally.deliveredTokens += countChunkTokens(chunk);
    await emit({ ...chunk, ...identity, usage: undefined });
    tally.wroteAnything = true;
  }
  return identity;
}

function outcomeOf(error: unknown, signal: AbortSignal, tallies: readonly StreamTally[]): UsageOutcome {
  if (error === undefined) return UsageOutcome.USAGE_OUTCOME_OK;
  if (signal.aborted) return UsageOutcome.USAGE_OUTCOME_CLIENT_CANCELLED;
  return tallies.some((tally) => tally.wroteAnything)
    ? UsageOutcome.USAGE_OUTCOME_STREAM_BROKEN
    : UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR;
}

function report(
  deps: RouterDependencies,
  { facts, tallies, logged }: StreamPlan<unknown>,
  answer: StreamAnswer,
  outcome: UsageOutcome,
  error: unknown,
) {
  const nothingServed = outcome === UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR;
  const { usage, estimated } = nothingServed ? { usage: undefined, estimated: false } : combinedUsage(tallies);
  const clientSawError = error !== undefined && outcome !== UsageOutcome.USAGE_OUTCOME_CLIENT_CANCELLED;
  publishUsage(
    deps,
    facts,
    { usage, estimated, outcome, ...(error instanceof GatewayError && { error }) },
    {
      request: logged,
      answer: () => answer.toLog(),
      answerTruncated: answer.truncated,
      ...(clientSawError && { error }),
    },
  );
}

/** One streamed request: its routing facts, the tallies of its vendor streams, and how to relay them. */
export interface StreamPlan<Chunk> {
  facts: RequestFacts;
  tallies: StreamTally[];
  // The request as the request log keeps it.
  logged: () => unknown;
  relay(emit: (chunk: Chunk) => Promise<void>): Promise<void>;
}

/**
 * A gRPC server-streaming handler over chat streams: routes (a routing failure is the
 * call's error), sends the response headers before the vendor is called, relays with HTTP/2 flow control (collecting
 * the answer for the request log), reports usage once however the stream ends, and ends
 * the call or fails it unless the client already left.
 */
export function chatStreamHandler<Request, Chunk extends { choices: readonly (ChunkChoice | CompletionChoice)[] }>(
  deps: RouterDependencies,
  spanName: string,
  plan: (request: Request, signal: AbortSignal) => Promise<StreamPlan<Chunk>>,
) {
  // The promise tells a draining server when the call's usage is reported.
  return (call: ServerWritableStream<Request, Chunk>): Promise<void> => {
    const { signal, answered } = callCancellation(call);
    return runInCallContext(call.metadata, async () => {
      let planned: StreamPlan<Chunk>;
      try {
        planned = await plan(call.request, signal);
      } catch (error) {
        answered();
        call.emit("error", toGrpcError(error) as ServiceError);
        return;
      }
      const { facts, tallies } = planned;
      await sendHeadersBeforeVendor({ sendHeadersNow: (metadata) => sendHeadersNow(call, metadata) }, facts);
      const answer = new StreamAnswer(streamAnswerBudget(deps.requestLog, facts.caller));
      // Respect HTTP/2 flow control: a slow client slows the vendor read instead of filling memory.
      const emit = async (chunk: Chunk) => {
        answer.add(chunk.choices);
        if (!call.write(chunk)) await once(call, "drain");
      };
      await inSpan(spanName, { "gateway.model": facts.model.id }, async () => {
        let failure: unknown;
        try {
          await planned.relay(emit);
        } catch (error) {
          failure = error;
        }
        report(deps, planned, answer, outcomeOf(failure, signal, tallies), failure);
        if (signal.aborted) return;
        answered();
        if (failure === undefined) call.end();
        else call.emit("error", toGrpcError(failure) as ServiceError);
      });
    }).catch((error: unknown) => deps.logger.error({ err: error }, "stream handler failed"));
  };
}
