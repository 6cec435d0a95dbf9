import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import {
  heldStreams,
  holds,
  type LlmPacedResult,
  modelPace,
  type PacedLevel,
  perUnit,
  summariseSide,
  tokensRelayed,
  wavesFor,
} from "./llm-paced.js";
import type { Target } from "./load.js";
import { runPacedStreams } from "./paced-streams.js";
import { difference } from "./report.js";
import { startRssSampler } from "./rss-sampler.js";
import { cpuTicks, runQueueWaitMs, ticksPerSecond } from "./settle.js";

export interface LlmPacedOptions {
  direct: Target;
  gateway: Target;
  /** The gateway's processes whose CPU and memory are counted per token and per stream. */
  pids: Record<string, number>;
  levels: readonly number[];
  minSamples: number;
  /** Waits for the previous run's leftover work before the next one starts. */
  begin(step: string): Promise<void>;
}

/** The paced run against one target, with the load generator's own CPU (in cores) over it. */
async function paced(target: Target, streams: number, waves: number) {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const run = await runPacedStreams(target, { streams, waves, pace: modelPace });
  const { user, system } = process.cpuUsage(cpuBefore);
  const clientCores = (user + system) / 1000 / (performance.now() - wallBefore);
  return { run, clientCores };
}

const readAll = (pids: Record<string, number>, read: (pid: number) => number) =>
  Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, read(pid)]));
const change = (before: Record<string, number>, after: Record<string, number>, scale: number) =>
  Object.fromEntries(Object.keys(before).map((name) => [name, (after[name]! - before[name]!) * scale]));

async function measureLevel(options: LlmPacedOptions, streams: number): Promise<PacedLevel> {
  const { pids } = options;
  const waves = wavesFor(streams, options.minSamples);
  await options.begin(`LLM-paced load at ${streams} streams: direct`);
  const loadAverage = loadavg()[0] ?? 0;
  const direct = await paced(options.direct, streams, waves);
  await options.begin(`LLM-paced load at ${streams} streams: gateway`);
  // Idle first, so the per-stream figure counts what the open streams hold, not what the process already did.
  const idle = startRssSampler(pids).stop();
  const sampler = startRssSampler(pids, 100);
  const ticksBefore = readAll(pids, cpuTicks);
  const waitBefore = readAll(pids, runQueueWaitMs);
  const wallBefore = performance.now();
  const gateway = await paced(options.gateway, streams, waves);
  const wallMs = performance.now() - wallBefore;
  const cpuUs = change(ticksBefore, readAll(pids, cpuTicks), 1e6 / ticksPerSecond);
  const waitingMs = change(waitBefore, readAll(pids, runQueueWaitMs), 1);
  const peak = sampler.stop();
  const rssGrowthKb = Object.fromEntries(
    peak.map((m) => [m.process, (m.peakRssMb - (idle.find((i) => i.process === m.process)?.peakRssMb ?? 0)) * 1024]),
  );
  const directSide = summariseSide("direct", direct.run, modelPace, direct.clientCores);
  const gatewaySide = summariseSide("gateway", gateway.run, modelPace, gateway.clientCores);
  return {
    streams,
    waves,
    loadAverage: Math.round(loadAverage * 100) / 100,
    direct: directSide,
    gateway: gatewaySide,
    addedMs: difference(gatewaySide.firstTokenOverMs, directSide.firstTokenOverMs),
    cpuUsPerToken: perUnit(cpuUs, tokensRelayed(gateway.run, modelPace)),
    rssKbPerStream: perUnit(rssGrowthKb, gateway.run.peakOpen),
    waitingShare: perUnit(waitingMs, wallMs),
  };
}

/** The sweep, level by level, until one does not hold. */
export async function measureLlmPaced(options: LlmPacedOptions): Promise<LlmPacedResult> {
  const levels: PacedLevel[] = [];
  for (const streams of options.levels) {
    const level = await measureLevel(options, streams);
    levels.push(level);
    if (!holds(level)) break;
  }
  return { pace: modelPace, minSamples: options.minSamples, levels, held: heldStreams(levels) };
}
