import { readFileSync } from "node:fs";

/** A process's resident set in kilobytes, from /proc (undefined once it is gone). */
export function residentKilobytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface Trend {
  first: number;
  last: number;
  growing: boolean;
}

/**
 * Compares the median of the last third of the samples with the median of the first third:
 * growing when the last exceeds the first by more than `ratio` times plus `slack` (medians
 * ignore the odd spike from a garbage collection or a busy neighbour).
 */
export function growthTrend(samples: number[], ratio: number, slack: number): Trend {
  if (samples.length < 3) throw new Error(`a trend needs at least 3 samples, got ${samples.length}`);
  const third = Math.floor(samples.length / 3);
  const first = median(samples.slice(0, third));
  const last = median(samples.slice(samples.length - third));
  return { first, last, growing: last > first * ratio + slack };
}
