import autocannon from "autocannon";
import { type CpuCounters, startCpuMeter } from "./cpu-meter.js";
import { type Percentiles, percentilesOf, round2, roundPercentiles } from "./stats.js";

/** The one request every run sends, so all targets do the same work. */
export const chatRequest = { model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hello" }] };

/** A chat endpoint (any vendor protocol), the headers it needs, and the request to send. */
export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  // Defaults to `chatRequest`; the streaming variant defaults to the same body with `stream: true`.
  body?: unknown;
  stream?: { url: string; body: unknown };
}

export const requestBody = (target: Target) => JSON.stringify(target.body ?? chatRequest);

export interface LoadOptions {
  connections: number;
  warmUpSeconds: number;
  seconds: number;
  /** Read around the measured run only, not the warm-up. */
  cpu?: CpuCounters;
}

export interface LoadResult {
  target: string;
  connections: number;
  seconds: number;
  ok: number;
  failed: number;
  requestsPerSecond: number;
  /** Computed from every 2xx response's own timing (sub-millisecond resolution). */
  latencyMs: Percentiles;
  /** autocannon's own histogram, kept for comparison: it records whole milliseconds only. */
  autocannonLatencyMs: Percentiles;
  /** Each of `LoadOptions.cpu`'s counters' CPU milliseconds per request sent (failed ones too). */
  cpuMsPerRequest?: Record<string, number>;
}

export interface RawRun {
  result: autocannon.Result;
  timingsMs: number[];
}

/**
 * One autocannon run that also keeps each 2xx response's duration: autocannon's histogram
 * truncates to whole milliseconds, too coarse for a loopback hop that costs well under one.
 */
export function cannon(target: Target, connections: number, seconds: number): Promise<RawRun> {
  const timingsMs: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: "POST",
        headers: { "content-type": "application/json", ...target.headers },
        body: requestBody(target),
        connections,
        duration: seconds,
      },
      (error, result) => (error ? reject(error) : resolve({ result, timingsMs })),
    );
    instance.on("response", (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) timingsMs.push(responseTimeMs);
    });
  });
}

/** Warms the target up (JIT, connection pools, caches), then measures a second, separate run. */
export async function runLoad(target: Target, options: LoadOptions): Promise<LoadResult> {
  await cannon(target, options.connections, options.warmUpSeconds);
  const cpuMsPerRequest = options.cpu && startCpuMeter(options.cpu);
  const { result, timingsMs } = await cannon(target, options.connections, options.seconds);
  const failed = result.non2xx + result.errors;
  if (timingsMs.length === 0)
    throw new Error(`${target.name}: no successful response at ${options.connections} connections`);
  return {
    target: target.name,
    connections: options.connections,
    seconds: result.duration,
    ok: timingsMs.length,
    failed,
    requestsPerSecond: round2(timingsMs.length / result.duration),
    latencyMs: roundPercentiles(percentilesOf(timingsMs)),
    autocannonLatencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    ...(cpuMsPerRequest && { cpuMsPerRequest: cpuMsPerRequest(result.requests.total) }),
  };
}

/** One plain request first, so a misconfigured target fails with its own error instead of a wall of non-2xx. */
export async function checkTarget(target: Target): Promise<void> {
  const response = await fetch(target.url, {
    method: "POST",
    headers: { "content-type": "application/json", ...target.headers },
    body: requestBody(target),
  });
  const text = await response.text();
  // Vendor protocols answer in their own shapes (choices, content, candidates): a 2xx JSON body is enough.
  if (!response.ok || !text.trimStart().startsWith("{")) {
    throw new Error(`${target.name} answered ${response.status}: ${text.slice(0, 500)}`);
  }
}
