import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// A full collection before each timing, so no run pays for the garbage of the one before it.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** Worse than linear: a tenfold input took more than this many times as long (linear work measures 8–15). */
export const superLinearRatio = 25;

/** Milliseconds of this process's CPU time (not wall time, which other processes on the machine inflate). */
async function cpuMs(work: () => unknown): Promise<number> {
  collectGarbage();
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export interface Growth {
  /** CPU milliseconds of one run at the base size and of one at ten times it. */
  small: number;
  large: number;
  /** large / small: about 10 for linear work, about 100 for quadratic. */
  ratio: number;
}

/** Ten runs of `work` on the small input, every result kept: as much allocated and live as one large run. */
async function tenTimes<Input>(work: (input: Input) => unknown, input: Input): Promise<unknown[]> {
  const kept: unknown[] = [];
  for (let run = 0; run < 10; run += 1) kept.push(await work(input));
  return kept;
}

/**
 * How the time of `work` grows when its input grows tenfold: inputs of `size` and `10 × size`
 * are built outside the timing. The small input is worked ten times over, keeping every result,
 * so both timings allocate and keep alike: otherwise a small run fits the young generation and a
 * large one pays for collecting what it keeps, and cheap linear work measured 30–60 times slower.
 * The small time is the median of `runs` (where collections fall still moves a sub-millisecond
 * run by 2–3×); the large one the fastest of at most three, retried only while over
 * `superLinearRatio`, so quadratic work is not repeated for long. A ratio, never an absolute time,
 * is what a test judges: choose sizes where the small run takes a few milliseconds.
 */
export async function tenfoldGrowth<Input>(
  build: (size: number) => Input,
  work: (input: Input) => unknown,
  size: number,
  runs = 5,
): Promise<Growth> {
  const [smallInput, largeInput] = [build(size), build(size * 10)];
  await work(smallInput);
  const smallRuns: number[] = [];
  for (let run = 0; run < runs; run += 1) smallRuns.push((await cpuMs(() => tenTimes(work, smallInput))) / 10);
  const small = smallRuns.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
  let large = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3 && large > small * superLinearRatio; run += 1) {
    large = Math.min(large, await cpuMs(() => work(largeInput)));
  }
  return { small, large, ratio: large / small };
}

export const superLinear = (growth: Growth) => growth.ratio > superLinearRatio;
