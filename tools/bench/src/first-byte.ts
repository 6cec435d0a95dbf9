import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { chatRequest, type Target } from "./load.js";
import { type Percentiles, percentilesOf, roundPercentiles } from "./stats.js";

export interface FirstByteOptions {
  warmUp: number;
  requests: number;
}

export interface FirstByteResult {
  target: string;
  requests: number;
  firstFrameMs: Percentiles;
}

function streamRequest(target: Target) {
  const body = target.stream?.body ?? { ...((target.body as object | undefined) ?? chatRequest), stream: true };
  return { url: target.stream?.url ?? target.url, body: JSON.stringify(body) };
}

/**
 * Sends one streaming request and resolves with the milliseconds until the first `data:` frame,
 * after reading the stream to its end so the keep-alive socket is reused by the next request.
 */
function timeFirstFrame(target: Target, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const { url, body: streamBody } = streamRequest(target);
    const started = performance.now();
    let firstFrameMs: number | undefined;
    let seen = "";
    const outgoing = request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(streamBody),
          ...target.headers,
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`${target.name} answered ${response.statusCode} to a streaming request`));
          return;
        }
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (firstFrameMs !== undefined) return;
          // A frame may straddle chunks, so look at everything received so far.
          seen += chunk;
          if (seen.includes("data:")) firstFrameMs = performance.now() - started;
        });
        response.on("end", () =>
          firstFrameMs === undefined
            ? reject(new Error(`${target.name} ended its stream without a data: frame`))
            : resolve(firstFrameMs),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(streamBody);
  });
}

/** Sequential streaming requests over one kept-alive connection, so only per-request work is timed. */
export async function measureFirstByte(target: Target, options: FirstByteOptions): Promise<FirstByteResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < options.warmUp; i++) await timeFirstFrame(target, agent);
    const timings: number[] = [];
    for (let i = 0; i < options.requests; i++) timings.push(await timeFirstFrame(target, agent));
    return { target: target.name, requests: options.requests, firstFrameMs: roundPercentiles(percentilesOf(timings)) };
  } finally {
    agent.destroy();
  }
}
