import { randomUUID } from "node:crypto";
import { type PriceInput, priceUsage } from "@gateway/billing";
import type { CatalogueModel } from "@gateway/catalogue";
import { pricesAt } from "@gateway/catalogue";
import { startTestStack, type TestStack, usageRecordOf } from "@gateway/stack";
import { toFile } from "openai";
import { afterAll, beforeAll, describe, type ExpectStatic, it } from "vitest";
import { multiplierOf, wav } from "../../../services/edge/test/media-fixtures.js";
import {
  type ExpectedChat,
  type ExpectedEmbeddings,
  type ExpectedError,
  type ExpectedImages,
  type ExpectedTranscription,
  expectedOf,
  type NormalisedUsage,
  notReplayable,
} from "./expected.js";
import {
  askChat,
  askFollowUp,
  type ChatAsk,
  type ChatIngress,
  chatIngresses,
  errorSeen,
  type GatewayClients,
  gatewayClients,
} from "./ingress-clients.js";
import { catalogue, modelFor, replayGroup } from "./model-choice.js";
import { bodyText, loadRecordings, type Recording } from "./recordings.js";
import { relayedAnswerOf } from "./relayed-responses.js";
import { type ReceivedRequest, ReplayVendor } from "./replay-server.js";

// Every recorded vendor answer (tools/replay/recordings) served by the replay vendor to one stack,
// asked for through every ingress format that can express it, and checked against what the
// vendor's own protocol says the client must see: content, tool calls, reasoning and its
// signatures, finish reason, usage by the one rule (docs/reasoning-and-caching.md), the ledger's
// charge at the catalogue's prices, and for errors the status and the vendor's retry delay.

type Ingress = ChatIngress | "OpenAI embeddings" | "OpenAI images" | "OpenAI transcriptions";

const chatProtocols = new Set(["openai-chat", "anthropic-messages", "gemini-generate"]);
const ingressesOf = (recording: Recording): Ingress[] => {
  // OpenAI's models on the Responses ingress are relayed to OpenAI's Responses API, never its chat.
  if (recording.family === "openai" && recording.protocol === "openai-chat") {
    return chatIngresses.filter((ingress) => ingress !== "OpenAI Responses");
  }
  if (chatProtocols.has(recording.protocol)) return [...chatIngresses];
  if (recording.protocol === "openai-embeddings" || recording.protocol === "gemini-embed") return ["OpenAI embeddings"];
  if (recording.protocol === "openai-images" || recording.protocol === "dashscope-image-synthesis") {
    return ["OpenAI images"];
  }
  if (recording.protocol === "openai-transcriptions") return ["OpenAI transcriptions"];
  // openai-responses: listed, and skipped with the reason (notReplayable).
  return ["OpenAI Responses"];
};

/** The ingress that speaks the family's own protocol, where signatures travel in their native field. */
const nativeIngress: Partial<Record<Recording["family"], Ingress>> = {
  anthropic: "Anthropic Messages",
  gemini: "Gemini",
};

const recordings = loadRecordings();
const cases = recordings.flatMap((recording) =>
  ingressesOf(recording).map((ingress) => ({ id: recording.id, family: recording.family, recording, ingress })),
);

/**
 * The signatures the ingress carries, as the vendor wrote them (docs/conformance.md): Claude's do
 * not travel in Responses items; off the Gemini ingress only Gemini's call signatures do, in the
 * call id, and its text-part signatures, which Google does not require back, have no carrier.
 */
function carriedSignatures(family: Recording["family"], ingress: Ingress, expected: ExpectedChat): string[] {
  if (family === "anthropic" && ingress === "OpenAI Responses") return [];
  if (family === "gemini" && ingress !== "Gemini") return expected.callSignatures ?? [];
  return expected.signatures;
}

/** A signature as the client is shown it: Gemini's in a call id are base64url without padding. */
const shownAs = (family: Recording["family"], ingress: Ingress, signature: string) =>
  family === "gemini" && ingress !== "Gemini"
    ? signature.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")
    : signature;

// Signed answers that did not stream, whose assistant turn a client sends back on the next turn.
const signedTurns = cases.filter(({ recording, ingress }) => {
  if (notReplayable(recording) || recording.stream || !chatProtocols.has(recording.protocol)) return false;
  const expected = expectedOf(recording);
  return expected.kind === "chat" && carriedSignatures(recording.family, ingress, expected).length > 0;
});

let stack: TestStack;
let replay: ReplayVendor;
let clients: GatewayClients;
let apiKey: string;
let multiplier: number;

beforeAll(async () => {
  replay = await ReplayVendor.start();
  stack = await startTestStack({
    env: replay.env(),
    serviceEnv: {
      // One attempt, no circuit breaking and no key disabling: each error recording is answered
      // once, as recorded, and does not close its channel (or key) to the recordings after it.
      router: { ROUTER_MAX_ATTEMPTS: "1", CIRCUIT_FAILURE_THRESHOLD: "1000000", ROUTER_DISABLE_REFUSED_KEYS: "false" },
    },
  });
  const account = await stack.createAccount({ group: replayGroup, creditYuan: 100_000 });
  clients = gatewayClients(stack.baseUrl, account.api_key);
  apiKey = account.api_key;
  multiplier = await multiplierOf(stack.databaseUrl, replayGroup);
}, 120_000);

afterAll(async () => {
  await stack?.teardown();
  await replay?.close();
});

const slug = (text: string) => text.toLowerCase().replaceAll(/[^a-z0-9]+/g, "-");

/** The vendor requests of the case, and why the replay vendor refused any (wrong path or family). */
function reachedOnce(expect: ExpectStatic, received: ReceivedRequest[]): void {
  expect(
    received.map((request) => request.refused ?? "answered"),
    "the gateway's requests to the replay vendor",
  ).toEqual(["answered"]);
}

async function caughtFrom(promise: Promise<unknown>, received: ReceivedRequest[]): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error(`the gateway answered without an error (vendor requests: ${received.length})`);
}

/** Rethrows a client error with what the replay vendor saw, so a failing case says why. */
async function answered<T>(promise: Promise<T>, received: ReceivedRequest[]): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    const refused = received.map((request) => request.refused).filter(Boolean);
    throw new Error(`${String(error)}${refused.length ? ` (replay vendor: ${refused.join("; ")})` : ""}`);
  }
}

async function expectCharged(
  expect: ExpectStatic,
  requestId: string,
  expected: Partial<PriceInput>,
  usage?: NormalisedUsage,
) {
  expect(requestId, "x-request-id").not.toBe("");
  const record = await usageRecordOf(stack.databaseUrl, requestId);
  if (usage) {
    expect
      .soft(
        {
          prompt: record.prompt_tokens,
          completion: record.completion_tokens,
          cacheRead: record.cached_tokens,
          cacheWrite: record.cache_creation_tokens,
          reasoning: record.reasoning_tokens,
        },
        "the usage record's counts",
      )
      .toEqual({
        prompt: usage.prompt,
        completion: usage.completion,
        cacheRead: usage.cacheRead,
        cacheWrite: usage.cacheWrite,
        reasoning: usage.reasoning,
      });
  }
  const due = priceUsage({
    promptTokens: 0,
    completionTokens: 0,
    inputPriceMicros: 0,
    outputPriceMicros: 0,
    ...expected,
    multiplierBasisPoints: multiplier,
  });
  expect(BigInt(record.cost_micros), "the ledger's charge (micro-yuan)").toBe(due);
}

/** The request a chat recording answers: the tools it calls offered, its thoughts asked for. */
function chatAsk(recording: Recording, model: string, marker: string, expected?: ExpectedChat): ChatAsk {
  return {
    model,
    prompt: marker,
    stream: recording.stream,
    toolNames: [...new Set(expected?.toolCalls.map((call) => call.name))],
    thoughts: (expected?.reasoning ?? "") !== "",
    logprobs: expected?.logprobs !== undefined,
  };
}

async function replayChat(expect: ExpectStatic, recording: Recording, ingress: ChatIngress, expected: ExpectedChat) {
  const model = modelFor(recording, expected);
  const marker = markerOf(recording, ingress);
  const received = replay.serve(marker, recording);
  const answer = await answered(askChat(clients, ingress, chatAsk(recording, model.id, marker, expected)), received);
  reachedOnce(expect, received);
  expect.soft(answer.text, "content").toBe(expected.text);
  expect.soft(answer.toolCalls, "tool calls").toEqual(expected.toolCalls);
  expect.soft(answer.reasoning, "reasoning text").toBe(expected.reasoning);
  if (nativeIngress[recording.family] === ingress) {
    expect.soft(answer.signatures, "signatures in their native field").toEqual(expected.signatures);
  } else {
    for (const signature of carriedSignatures(recording.family, ingress, expected)) {
      const shown = shownAs(recording.family, ingress, signature);
      expect.soft(answer.everything.includes(shown), `signature ${signature.slice(0, 16)}… carried`).toBe(true);
    }
  }
  expect.soft(answer.finish, "finish reason").toBe(expected.finish);
  const shown = Object.fromEntries(
    Object.keys(answer.shownUsage).map((name) => [name, expected.usage[name as keyof NormalisedUsage]]),
  );
  expect.soft(answer.shownUsage, "usage shown").toEqual(shown);
  if (ingress === "OpenAI chat" && expected.logprobs)
    expect.soft(answer.logprobs, "logprobs").toEqual(expected.logprobs);
  const price = pricesAt(model.price, expected.usage.prompt);
  await expectCharged(
    expect,
    answer.requestId,
    {
      promptTokens: expected.usage.prompt,
      completionTokens: expected.usage.completion,
      cachedTokens: expected.usage.cacheRead,
      cacheCreationTokens: expected.usage.cacheWrite,
      inputPriceMicros: price.input,
      outputPriceMicros: price.output,
      cacheReadPriceMicros: price.cache_read,
      cacheWritePriceMicros: price.cache_write,
    },
    expected.usage,
  );
}

/** The one request each non-chat ingress sends for a recording (asking for `count` results). */
const nonChatRequests = {
  "OpenAI embeddings": (model: CatalogueModel, marker: string, count: number) =>
    clients.openai.embeddings
      .create({
        model: model.id,
        input: Array.from({ length: count }, (_, index) => `${marker} input ${index}`),
        encoding_format: "float",
      })
      .withResponse(),
  "OpenAI images": (model: CatalogueModel, marker: string, count: number) =>
    clients.openai.images
      .generate({
        model: model.id,
        prompt: marker,
        n: count,
        ...(model.images?.response_format && { response_format: "b64_json" as const }),
      })
      .withResponse(),
  "OpenAI transcriptions": async (model: CatalogueModel, marker: string, timed: boolean) =>
    clients.openai.audio.transcriptions
      .create({
        model: model.id,
        file: await toFile(wav(1), "speech.wav"),
        prompt: marker,
        // A recording with timings is asked for as verbose_json, where the model offers it.
        response_format:
          timed && (model.audio!.response_formats as string[]).includes("verbose_json") ? "verbose_json" : "json",
      })
      .withResponse(),
};

const markerOf = (recording: Recording, ingress: Ingress) =>
  `replay ${recording.id} ${slug(ingress)} ${randomUUID().slice(0, 8)}`;

async function replayError(expect: ExpectStatic, recording: Recording, ingress: Ingress, expected: ExpectedError) {
  const model = modelFor(recording, expected);
  const marker = markerOf(recording, ingress);
  const received = replay.serve(marker, recording);
  const request =
    ingress === "OpenAI embeddings" || ingress === "OpenAI images"
      ? nonChatRequests[ingress](model, marker, 1)
      : ingress === "OpenAI transcriptions"
        ? nonChatRequests[ingress](model, marker, false)
        : askChat(clients, ingress, chatAsk(recording, model.id, marker));
  const seen = errorSeen(await caughtFrom(request, received));
  reachedOnce(expect, received);
  expect.soft(seen.status, "status").toBe(expected.status);
  if (expected.retryAfterMs !== undefined) {
    expect.soft(seen.retryAfterSeconds, "retry delay (s)").toBe(Math.ceil(expected.retryAfterMs / 1000));
    if (seen.retryAfterMs !== undefined) expect.soft(seen.retryAfterMs, "retry delay (ms)").toBe(expected.retryAfterMs);
  }
}

async function replayEmbeddings(expect: ExpectStatic, recording: Recording, expected: ExpectedEmbeddings) {
  const model = modelFor(recording, expected);
  const marker = markerOf(recording, "OpenAI embeddings");
  const received = replay.serve(marker, recording);
  const { data, response } = await answered(
    nonChatRequests["OpenAI embeddings"](model, marker, expected.vectors.length),
    received,
  );
  reachedOnce(expect, received);
  // Embeddings are float32 numbers; the vendor's short decimals and their float64 expansions are the same ones.
  const float32 = (vectors: number[][]) => vectors.map((vector) => vector.map(Math.fround));
  expect.soft(float32(data.data.map((item) => item.embedding)), "vectors").toEqual(float32(expected.vectors));
  if (expected.promptTokens === undefined) return;
  expect.soft(data.usage.prompt_tokens, "prompt tokens").toBe(expected.promptTokens);
  await expectCharged(expect, response.headers.get("x-request-id") ?? "", {
    promptTokens: expected.promptTokens,
    inputPriceMicros: pricesAt(model.price, expected.promptTokens).input,
  });
}

// ROUTER_IMAGE_OUTPUT_TOKENS_BOUND's default, which the test stack keeps: the output tokens one image reserves.
const imageOutputTokensBound = 16_384;

/** The counts billed for a token-billed image answer that carried no usage: the bound, estimated. */
async function reservedImageTokens(expect: ExpectStatic, requestId: string, images: number) {
  const record = await usageRecordOf(stack.databaseUrl, requestId);
  expect(record).toMatchObject({ estimated: true, completion_tokens: images * imageOutputTokensBound });
  return { input: record.prompt_tokens, imageInput: 0, output: record.completion_tokens };
}

async function replayImages(expect: ExpectStatic, recording: Recording, expected: ExpectedImages) {
  const model = modelFor(recording, expected);
  const rules = model.images!;
  const marker = markerOf(recording, "OpenAI images");
  const received = replay.serve(marker, recording);
  const { data, response } = await answered(
    nonChatRequests["OpenAI images"](model, marker, expected.images.length),
    received,
  );
  reachedOnce(expect, received);
  const shown = data.data?.map((image) => ({
    b64_json: image.b64_json,
    ...(image.revised_prompt && { revised_prompt: image.revised_prompt }),
  }));
  expect.soft(shown, "images").toEqual(expected.images);
  const requestId = response.headers.get("x-request-id") ?? "";
  if (rules.image_input_price !== undefined) {
    // Billed by token (a recording of dall-e or gpt-image-1 replays as their successor): exactly the
    // recorded usage; an answer without any (dall-e's) bills the reservation's bound, flagged estimated.
    const usage = expected.usage ?? (await reservedImageTokens(expect, requestId, expected.images.length));
    expect.soft(data.usage?.input_tokens, "input tokens").toBe(expected.usage?.input);
    expect.soft(data.usage?.output_tokens, "output tokens").toBe(expected.usage?.output);
    const price = pricesAt(model.price, usage.input);
    await expectCharged(expect, requestId, {
      promptTokens: usage.input,
      completionTokens: usage.output,
      imageInputTokens: usage.imageInput,
      inputPriceMicros: price.input,
      outputPriceMicros: price.output,
      imageInputPriceMicros: rules.image_input_price,
    });
    return;
  }
  const unitPrice = (rules.prices[rules.default_size] as Record<string, number>)[rules.default_quality]!;
  await expectCharged(expect, requestId, {
    billedUnits: expected.images.length,
    unitPriceMicros: unitPrice,
  });
}

async function replayTranscription(expect: ExpectStatic, recording: Recording, expected: ExpectedTranscription) {
  const model = modelFor(recording, expected);
  const marker = markerOf(recording, "OpenAI transcriptions");
  const received = replay.serve(marker, recording);
  const timed = /"(duration|segments|words)"/.test(bodyText(recording));
  const { data, response } = await answered(nonChatRequests["OpenAI transcriptions"](model, marker, timed), received);
  reachedOnce(expect, received);
  expect.soft(data.text, "transcript").toBe(expected.text);
  if (expected.seconds === undefined) return;
  await expectCharged(expect, response.headers.get("x-request-id") ?? "", {
    billedUnits: Math.max(1, Math.ceil(expected.seconds)),
    unitPriceMicros: model.audio!.price_per_second,
  });
}

describe.concurrent("replay of real recordings", () => {
  it.for(cases)("$family: $id via $ingress", async ({ recording, ingress }, { expect, skip }) => {
    const why = notReplayable(recording);
    if (why) return skip(why);
    const expected = expectedOf(recording);
    switch (expected.kind) {
      case "error":
        return replayError(expect, recording, ingress, expected);
      case "chat":
        return replayChat(expect, recording, ingress as ChatIngress, expected);
      case "embeddings":
        return replayEmbeddings(expect, recording, expected);
      case "images":
        return replayImages(expect, recording, expected);
      case "transcription":
        return replayTranscription(expect, recording, expected);
    }
  });
});

// OpenAI's own Responses answers, relayed: the client reads the vendor's bytes, the ledger bills its usage.
const relayedCases = recordings.filter(
  (recording) => recording.family === "openai" && recording.protocol === "openai-responses" && recording.status === 200,
);

describe.concurrent("OpenAI's Responses recordings relayed", () => {
  it.for(relayedCases)("$id", async (recording, { expect }) => {
    const model = catalogue.find(recording.model ?? "", replayGroup) ?? catalogue.find("gpt-5", replayGroup)!;
    const marker = markerOf(recording, "OpenAI Responses");
    const received = replay.serve(marker, recording);
    const response = await fetch(`${stack.baseUrl}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: model.id, input: marker, stream: recording.stream }),
    });
    const text = await response.text();
    reachedOnce(expect, received);
    const expected = relayedAnswerOf(recording);
    const requestId = response.headers.get("x-request-id") ?? "";
    if (expected.failedBeforeOutput) {
      // OpenAI's insufficient_quota as an error event: the gateway's spent key, as chat answers it.
      expect(response.status).toBe(500);
      expect(JSON.parse(text).error).toMatchObject({ type: "server_error" });
      return expectCharged(expect, requestId, {});
    }
    expect(response.status).toBe(200);
    expect(text.trimEnd(), "the vendor's answer, as it wrote it").toBe(expected.text.trimEnd());
    const usage = expected.usage!;
    const price = pricesAt(model.price, usage.input);
    await expectCharged(
      expect,
      requestId,
      {
        promptTokens: usage.input,
        completionTokens: usage.output,
        cachedTokens: usage.cached,
        inputPriceMicros: price.input,
        cacheReadPriceMicros: price.cache_read,
        outputPriceMicros: price.output,
      },
      {
        prompt: usage.input,
        completion: usage.output,
        total: usage.input + usage.output,
        cacheRead: usage.cached,
        cacheWrite: 0,
        reasoning: usage.reasoning,
      },
    );
  });
});

describe.concurrent("signatures sent back on the next turn", () => {
  it.for(signedTurns)("$family: $id via $ingress", async ({ recording, ingress }, { expect }) => {
    const expected = expectedOf(recording) as ExpectedChat;
    const model = modelFor(recording, expected);
    const marker = markerOf(recording, ingress);
    // The next turn is answered with the same recording: only what the gateway sends matters here.
    const received = replay.serve(marker, recording);
    const ask = chatAsk(recording, model.id, marker, expected);
    const first = await answered(askChat(clients, ingress as ChatIngress, ask), received);
    await answered(askFollowUp(clients, ingress as ChatIngress, ask, first.reply!), received);
    expect(received.map((request) => request.refused ?? "answered")).toEqual(["answered", "answered"]);
    for (const signature of carriedSignatures(recording.family, ingress, expected)) {
      expect
        .soft(
          received[1]!.raw.includes(signature),
          `signature ${signature.slice(0, 16)}… in the next turn to the vendor`,
        )
        .toBe(true);
    }
  });
});
