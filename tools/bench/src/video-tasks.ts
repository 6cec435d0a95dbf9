import { setTimeout as sleep } from "node:timers/promises";
import { queryRows } from "@gateway/stack";
import { type Percentiles, percentilesOf, round2, roundPercentiles } from "./stats.js";

export interface VideoBenchOptions {
  /** Sequential submits timed for latency, after `warmUp` untimed ones. */
  warmUp: number;
  submits: number;
  /** Tasks submitted at once for the worker throughput run. */
  tasks: number;
}

export interface VideoResult {
  submits: number;
  /** While the pool has renders in progress (as in use, where a render takes seconds to minutes). */
  submitMs: Percentiles;
  /** While the pool finishes every task the moment it is submitted: its whole per-task work shares the cores. */
  submitMsFinishingAtOnce: Percentiles;
  tasks: number;
  /** Submits of the throughput run that were refused (their tasks are not waited for); see the services' logs. */
  failedSubmits: number;
  /** Seconds from the first submit until the last task completed. */
  seconds: number;
  tasksPerSecond: number;
}

// With renderMs 0 the simulator finishes the jobs at once, so the throughput is the pool's own cost per task
// (vendor create, poll, download, storage, completion, billing) rather than a render time.
const request = (index: number, renderMs: number) => ({
  model: "sora-2",
  prompt: `bench video ${index} [sim:video_ms=${renderMs}]`,
  async: true,
});

// Longer than the run, so the pool keeps polling renders while submits are timed; the stack's teardown ends them.
const RENDERING_MS = 10 * 60_000;

function submitter(baseUrl: string, apiKey: string, renderMs = 0) {
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  let submitted = 0;
  return async (): Promise<string> => {
    const body = JSON.stringify(request(submitted++, renderMs));
    const response = await fetch(`${baseUrl}/videos/generations`, { method: "POST", headers, body });
    const answer = (await response.json()) as { id?: string };
    if (response.status !== 200 || !answer.id) {
      throw new Error(`video submit answered ${response.status}: ${JSON.stringify(answer)}`);
    }
    return answer.id;
  };
}

/** Milliseconds of each sequential POST /v1/videos/generations, answer read. */
async function timeSubmits(submit: () => Promise<string>, options: VideoBenchOptions): Promise<Percentiles> {
  for (let index = 0; index < options.warmUp; index++) await submit();
  const timings: number[] = [];
  for (let index = 0; index < options.submits; index++) {
    const started = performance.now();
    await submit();
    timings.push(performance.now() - started);
  }
  return roundPercentiles(percentilesOf(timings));
}

/** Resolves once every task is completed, straight from the video schema; throws on a failed one. */
async function allCompleted(databaseUrl: string, ids: string[]): Promise<void> {
  for (;;) {
    const [counts] = await queryRows<{ completed: number; failed: number }>(
      databaseUrl,
      `SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed,
              count(*) FILTER (WHERE status = 'failed')::int AS failed
       FROM video.tasks WHERE id = ANY($1)`,
      [ids],
    );
    if (counts && counts.failed > 0) throw new Error(`${counts.failed} bench video tasks failed`);
    if (counts?.completed === ids.length) return;
    await sleep(20);
  }
}

/**
 * Submit latency through edge, then how many tasks per second the stack's own worker pool
 * (default concurrency and tick) takes from submitted to completed through the simulator.
 */
export async function measureVideoTasks(
  stack: { baseUrl: string; databaseUrl: string },
  apiKey: string,
  options: VideoBenchOptions,
  settle: (step: string) => Promise<void>,
): Promise<VideoResult> {
  const submit = submitter(stack.baseUrl, apiKey);
  const submitMsFinishingAtOnce = await timeSubmits(submit, options);
  await settle("video worker throughput");
  const started = performance.now();
  const submitted = await Promise.allSettled(Array.from({ length: options.tasks }, submit));
  const ids = submitted.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  await allCompleted(stack.databaseUrl, ids);
  const seconds = (performance.now() - started) / 1000;
  await settle("video submit latency, renders in progress");
  const submitMs = await timeSubmits(submitter(stack.baseUrl, apiKey, RENDERING_MS), options);
  return {
    submits: options.submits,
    submitMs,
    submitMsFinishingAtOnce,
    tasks: ids.length,
    failedSubmits: options.tasks - ids.length,
    seconds: round2(seconds),
    tasksPerSecond: round2(ids.length / seconds),
  };
}
