import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Target } from "./load.js";

/** A model's pace, as the simulator's directives ask for it: first token, then one token every `tokenMs`. */
export interface Pace {
  firstTokenMs: number;
  tokenMs: number;
  tokens: number;
}

/** What one streamed answer did, seen from the client. */
export interface StreamOutcome {
  /** Which of the slot's consecutive streams: 0 ramps the level up, the later ones run at full concurrency. */
  wave: number;
  /** Milliseconds from sending the request to the first `data:` frame; undefined if none came. */
  firstFrameMs: number | undefined;
  /** `data:` frames received, `[DONE]` included. */
  frames: number;
  /** A 200 that ended with `data: [DONE]` after at least one frame per token; anything else is a dropped stream. */
  completed: boolean;
  /** Why a dropped stream counts as dropped. */
  failure?: string;
}

export interface PacedStreamsOptions {
  streams: number;
  /** Consecutive streams per slot; the first wave's starts are spread over one answer's time. */
  waves: number;
  pace: Pace;
}

export interface PacedStreamsRun {
  outcomes: StreamOutcome[];
  /** The most streams open at once. */
  peakOpen: number;
  seconds: number;
}

/** How long one answer takes at this pace: the first token, then the rest one token time apart. */
export const answerMs = ({ firstTokenMs, tokenMs, tokens }: Pace) => firstTokenMs + tokenMs * Math.max(0, tokens - 1);

export function pacedRequestBody(target: Target, pace: Pace): string {
  const directives = `[sim:delay_ms=${pace.firstTokenMs}] [sim:token_latency_ms=${pace.tokenMs}] [sim:tokens=${pace.tokens}]`;
  return JSON.stringify({
    model: "gpt-4o-mini",
    ...(target.body as object | undefined),
    stream: true,
    messages: [{ role: "user", content: `Tell me a long story ${directives}` }],
  });
}

const frameMark = "data:";
const doneMark = "data: [DONE]";
const lastFrameChars = 600;

/** Counts `data:` frames across chunk boundaries and remembers how the stream ended. */
export class FrameCounter {
  frames = 0;
  private tail = "";

  push(chunk: string): void {
    const text = this.tail + chunk;
    for (let at = text.indexOf(frameMark); at !== -1; at = text.indexOf(frameMark, at + frameMark.length)) {
      // A mark that started in the kept tail was already counted.
      if (at + frameMark.length > this.tail.length) this.frames += 1;
    }
    // Long enough to hold the last frame whole, so a dropped stream can say how it ended.
    this.tail = text.slice(-lastFrameChars);
  }

  /** The last frame received, cut to a line's length. */
  lastFrame(): string {
    const start = this.tail.lastIndexOf(frameMark, this.tail.trimEnd().length - 1);
    return (start === -1 ? this.tail : this.tail.slice(start)).trim().slice(0, 160);
  }

  endedDone(): boolean {
    return this.tail.trimEnd().endsWith(doneMark);
  }
}

function endFailure(status: number | undefined, counter: FrameCounter, pace: Pace): string | undefined {
  if (status !== 200) return `status ${status}`;
  if (!counter.endedDone()) return `ended without [DONE] after ${counter.frames} frames, last: ${counter.lastFrame()}`;
  if (counter.frames < pace.tokens) return `${counter.frames} frames for ${pace.tokens} tokens`;
  return undefined;
}

/** One streamed answer, read to its end; never rejects, a failure is an outcome that did not complete. */
function streamOnce(target: Target, body: string, agent: Agent, wave: number, pace: Pace): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const counter = new FrameCounter();
    let firstFrameMs: number | undefined;
    let settled = false;
    const finish = (failure: string | undefined) => {
      if (settled) return;
      settled = true;
      const outcome = { wave, firstFrameMs, frames: counter.frames, completed: failure === undefined };
      resolve(failure === undefined ? outcome : { ...outcome, failure });
    };
    const outgoing = request(
      target.url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...target.headers },
      },
      (response) => {
        const status = response.statusCode;
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          counter.push(chunk);
          if (firstFrameMs === undefined && counter.frames > 0) firstFrameMs = performance.now() - started;
        });
        response.on("end", () => finish(endFailure(status, counter, pace)));
        response.on("error", (error) => finish(`response error: ${error.message}`));
        response.on("close", () => finish("closed before its end"));
      },
    );
    outgoing.on("error", (error) => finish(`request error: ${error.message}`));
    outgoing.end(body);
  });
}

/**
 * Holds `streams` paced streams open at once: each slot runs `waves` answers back to back, the
 * slots' first starts spread evenly over one answer's time, so new streams arrive at a steady rate
 * (streams ÷ answer time) as an LLM's clients would, not all in one burst.
 */
export async function runPacedStreams(target: Target, options: PacedStreamsOptions): Promise<PacedStreamsRun> {
  const { streams, waves, pace } = options;
  // One socket per open stream, kept alive between a slot's consecutive answers.
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const body = pacedRequestBody(target, pace);
  const spreadMs = answerMs(pace) / streams;
  const outcomes: StreamOutcome[] = [];
  let open = 0;
  let peakOpen = 0;
  const started = performance.now();
  const slot = async (index: number) => {
    await sleep(index * spreadMs);
    for (let wave = 0; wave < waves; wave++) {
      open += 1;
      peakOpen = Math.max(peakOpen, open);
      outcomes.push(await streamOnce(target, body, agent, wave, pace));
      open -= 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: streams }, (_, index) => slot(index)));
  } finally {
    agent.destroy();
  }
  return { outcomes, peakOpen, seconds: (performance.now() - started) / 1000 };
}
