import type { Recording } from "./recordings.js";
import { frameEvent } from "./replay-server.js";

// OpenAI's Responses recordings are relayed, not translated: the client must get the vendor's
// bytes, and the ledger must bill the usage of the vendor's response object.

export interface RelayedAnswer {
  // What the replay vendor writes, so what the client must read.
  text: string;
  // The stream failed before any output (an error event after the opening ones): the client gets
  // the gateway's error for that failure, as from a failed status, and nothing is billed.
  failedBeforeOutput: boolean;
  usage: { input: number; cached: number; output: number; reasoning: number } | undefined;
}

const terminalTypes = new Set(["response.completed", "response.incomplete", "response.failed"]);
const openingTypes = new Set(["response.created", "response.in_progress", "response.queued"]);

function failsBeforeOutput(payloads: string[]): boolean {
  const first = payloads
    .map((payload) => (JSON.parse(payload) as { type?: string }).type ?? "")
    .find((type) => !openingTypes.has(type));
  return first === "error" || first === "response.failed";
}

/** The data of each event of an SSE text. */
const eventData = (text: string) =>
  text
    .split(/\r?\n\r?\n/)
    .flatMap((block) => block.split(/\r?\n/).filter((line) => line.startsWith("data:")))
    .map((line) => line.slice(5).trim());

function responseObjectOf(payloads: string[], streamed: boolean): Record<string, unknown> | undefined {
  if (!streamed) return JSON.parse(payloads[0] ?? "null") as Record<string, unknown>;
  for (const payload of payloads.toReversed()) {
    const event = JSON.parse(payload) as { type?: string; response?: Record<string, unknown> };
    if (event.type && terminalTypes.has(event.type)) return event.response;
  }
  return undefined;
}

/** What the client must receive from a relayed Responses recording, and what it must be billed for. */
export function relayedAnswerOf(recording: Recording): RelayedAnswer {
  const streamed = recording.body.kind === "events" || recording.stream;
  const text =
    recording.body.kind === "events"
      ? recording.body.payloads.map((payload) => frameEvent(recording.protocol, payload)).join("")
      : recording.body.bytes.toString("utf8");
  const payloads = recording.body.kind === "events" ? recording.body.payloads : streamed ? eventData(text) : [text];
  const usage = (responseObjectOf(payloads, streamed)?.usage ?? undefined) as
    | {
        input_tokens: number;
        input_tokens_details?: { cached_tokens?: number };
        output_tokens: number;
        output_tokens_details?: { reasoning_tokens?: number };
      }
    | undefined;
  return {
    text,
    failedBeforeOutput: streamed && failsBeforeOutput(payloads),
    usage: usage && {
      input: usage.input_tokens,
      cached: usage.input_tokens_details?.cached_tokens ?? 0,
      output: usage.output_tokens,
      reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0,
    },
  };
}
