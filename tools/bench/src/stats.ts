export interface Percentiles {
  p50: number;
  p99: number;
}

/** Nearest-rank percentile: always a value that was actually observed, never an interpolation. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error("no samples to take a percentile of");
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function percentilesOf(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** Rounds to 2 decimals for display and the JSON summary, where more digits would be noise. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

export function roundPercentiles({ p50, p99 }: Percentiles): Percentiles {
  return { p50: round2(p50), p99: round2(p99) };
}
