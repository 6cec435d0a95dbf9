import { ms, perSecond } from "./format.js";
import type { Pace, PacedStreamsRun } from "./paced-streams.js";
import { type Percentiles, percentilesOf, round2, roundPercentiles } from "./stats.js";

// Issue 33 item 6: how many streams the gateway holds open at a model's pace, and what each costs.

/** A chat model's pace: first token after 300 ms, then 50 tokens/s, 300-token answers (~6.3 s each). */
export const modelPace: Pace = { firstTokenMs: 300, tokenMs: 20, tokens: 300 };
export const sweeps = { full: [50, 100, 200, 400, 800, 1_000, 1_600], quick: [20, 100] };
/** What a level may add to the first token's p99 over the simulator's own at the same concurrency. */
export const addedFirstTokenLimitMs = 50;
export const targetStreams = 1_000;

/**
 * Answers each slot asks for at a level: one to ramp up, then enough at full concurrency for
 * `minSamples` first tokens, so a small level's p99 is not just its slowest stream.
 */
export function wavesFor(streams: number, minSamples: number): number {
  return 1 + Math.max(1, Math.ceil(minSamples / streams));
}

/** One target at one level: first-token delays over the model's own 300 ms, of the streams at full concurrency. */
export interface PacedSide {
  target: string;
  started: number;
  dropped: number;
  firstTokenOverMs: Percentiles;
  peakOpen: number;
  /** The load generator's CPU over the run, in cores: near 1, the client would be the bottleneck. */
  clientCores: number;
  /** The distinct reasons streams dropped, the first few. */
  failures: string[];
}

export interface PacedLevel {
  streams: number;
  /** Answers per slot: the first ramps up, the rest are measured. */
  waves: number;
  /** The machine's 1-minute load average as the level started: other sessions' work skews it. */
  loadAverage: number;
  direct: PacedSide;
  gateway: PacedSide;
  /** Gateway minus direct, percentile by percentile. */
  addedMs: Percentiles;
  /** Each process's CPU over the gateway run divided by the tokens it relayed, in µs. */
  cpuUsPerToken: Record<string, number>;
  /** Each process's (peak − idle) resident set over the streams open at the peak, in KB. */
  rssKbPerStream: Record<string, number>;
  /** The share of the gateway run's wall time each process's event loop was runnable but had no core. */
  waitingShare: Record<string, number>;
}

export interface LlmPacedResult {
  pace: Pace;
  /** First tokens measured at full concurrency per level, at least. */
  minSamples: number;
  levels: PacedLevel[];
  /** The largest level of the unbroken run of held levels from the smallest; undefined if none held. */
  held: number | undefined;
}

/** The first-token delays (over the pace's own) of the streams past the ramp, and how many streams dropped. */
export function summariseSide(target: string, run: PacedStreamsRun, pace: Pace, clientCores: number): PacedSide {
  const measured = run.outcomes.filter((outcome) => outcome.wave > 0 && outcome.firstFrameMs !== undefined);
  const delays = measured.map((outcome) => outcome.firstFrameMs! - pace.firstTokenMs);
  return {
    target,
    started: run.outcomes.length,
    dropped: run.outcomes.filter((outcome) => !outcome.completed).length,
    firstTokenOverMs:
      delays.length > 0 ? roundPercentiles(percentilesOf(delays)) : { p50: Number.NaN, p99: Number.NaN },
    peakOpen: run.peakOpen,
    clientCores: round2(clientCores),
    failures: [...new Set(run.outcomes.flatMap((outcome) => outcome.failure ?? []))].slice(0, 3),
  };
}

/** Tokens the run relayed: a whole answer per completed stream, and the frames past the role chunk of a dropped one. */
export function tokensRelayed(run: PacedStreamsRun, pace: Pace): number {
  return run.outcomes.reduce(
    (sum, outcome) => sum + (outcome.completed ? pace.tokens : Math.max(0, outcome.frames - 1)),
    0,
  );
}

export function perUnit(totals: Record<string, number>, units: number): Record<string, number> {
  return Object.fromEntries(Object.entries(totals).map(([name, total]) => [name, round2(total / Math.max(1, units))]));
}

/** Held: the gateway added under the limit to the first token's p99 and neither side dropped a stream. */
export function holds(level: PacedLevel): boolean {
  return level.addedMs.p99 < addedFirstTokenLimitMs && level.gateway.dropped === 0 && level.direct.dropped === 0;
}

/** The sweep stops at the first level that does not hold: larger ones would only load the shared machine more. */
export function heldStreams(levels: readonly PacedLevel[]): number | undefined {
  let held: number | undefined;
  for (const level of levels) {
    if (!holds(level)) break;
    held = level.streams;
  }
  return held;
}

const pair = ({ p50, p99 }: Percentiles) => `${ms(p50)} / ${ms(p99)}`;
const signed = (value: number) => `${value >= 0 ? "+" : ""}${ms(value)}`;
const perProcess = (values: Record<string, number>, names: readonly string[]) =>
  names.map((name) => (values[name] === undefined ? "—" : values[name]!.toFixed(1))).join(" / ");

function levelRow(level: PacedLevel): string {
  const { streams, direct, gateway, addedMs, cpuUsPerToken, rssKbPerStream, waitingShare, loadAverage } = level;
  const percent = (share: number | undefined) => (share === undefined ? "—" : `${Math.round(share * 100)} %`);
  return [
    "",
    perSecond(streams),
    pair(direct.firstTokenOverMs),
    pair(gateway.firstTokenOverMs),
    `${signed(addedMs.p99)} ms`,
    `${direct.dropped} / ${gateway.dropped} of ${perSecond(gateway.started)}`,
    perProcess(cpuUsPerToken, ["edge", "router"]),
    perProcess(rssKbPerStream, ["edge", "router"]),
    `${percent(waitingShare.edge)} / ${percent(waitingShare.router)}`,
    `${direct.clientCores.toFixed(2)} / ${gateway.clientCores.toFixed(2)}`,
    loadAverage.toFixed(2),
    holds(level) ? "yes" : "no",
    "",
  ]
    .join(" | ")
    .trim();
}

export function heldVerdict(result: LlmPacedResult): string {
  const held = result.held;
  const largest = result.levels.at(-1)?.streams;
  const what =
    held === undefined
      ? "no level held"
      : `held ${perSecond(held)} concurrent streams${held === largest ? " (the largest level tried)" : ""}`;
  const met = held !== undefined && held >= targetStreams ? "met" : "not met";
  return `LLM-paced load: ${what}; target ≥ ${perSecond(targetStreams)} with the added first-token p99 < ${addedFirstTokenLimitMs} ms and none dropped: ${met}.`;
}

/** The sweep's table, one row per level tried, and the verdict against the target. */
export function llmPacedTable(result: LlmPacedResult): string[] {
  const { firstTokenMs, tokenMs, tokens } = result.pace;
  return [
    `| LLM-paced streams⁷ (first token after ${firstTokenMs} ms, ${perSecond(1000 / tokenMs)} tokens/s, ${tokens} tokens) | First token over ${firstTokenMs} ms, direct p50 / p99 (ms) | Gateway p50 / p99 (ms) | Added p99 | Dropped direct / gateway | CPU per token edge / router (µs) | RSS per open stream edge / router (KB) | Event loop waiting for a core edge / router | Load generator cores direct / gateway | Load average | Held |`,
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ...result.levels.map(levelRow),
    "",
    heldVerdict(result),
    ...result.levels.flatMap(({ streams, direct, gateway }) =>
      [direct, gateway]
        .filter((side) => side.dropped > 0)
        .map(
          (side) =>
            `- ${side.target} at ${perSecond(streams)} streams: ${side.dropped} dropped (${side.failures.join("; ")}).`,
        ),
    ),
  ];
}

/** The README's one row for it. */
export function llmPacedReadmeRow(result: LlmPacedResult): string {
  const held = result.held === undefined ? "none" : perSecond(result.held);
  return `| Concurrent LLM-paced streams held (added first-token p99 < ${addedFirstTokenLimitMs} ms, none dropped) | — | ${held} | n/a | target ≥ ${perSecond(targetStreams)} |`;
}
