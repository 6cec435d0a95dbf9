import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Meter } from "@opentelemetry/api";

const NANOSECONDS_PER_SECOND = 1e9;

type DelayHistogram = ReturnType<typeof monitorEventLoopDelay>;

// Each statistic of the event-loop delay exported, and how it is read from Node's histogram.
const delayStatistics: [name: string, description: string, read: (delay: DelayHistogram) => number][] = [
  ["nodejs_eventloop_delay_p50_seconds", "Median", (delay) => delay.percentile(50)],
  ["nodejs_eventloop_delay_p99_seconds", "99th percentile", (delay) => delay.percentile(99)],
  ["nodejs_eventloop_delay_max_seconds", "Longest", (delay) => delay.max],
];

// Each memory figure exported, read from process.memoryUsage().
const memoryFigures: [name: string, description: string, read: (memory: NodeJS.MemoryUsage) => number][] = [
  ["nodejs_heap_used_bytes", "V8 heap in use", (memory) => memory.heapUsed],
  ["nodejs_heap_total_bytes", "V8 heap reserved", (memory) => memory.heapTotal],
  ["process_resident_memory_bytes", "Resident set size of the process", (memory) => memory.rss],
];

// Event-loop delay is reported over fixed windows rather than "since the last collection",
// which would depend on how many readers (Prometheus scrapes, OTLP exports) collect and when.
const DELAY_WINDOW_MS = 10_000;

/**
 * Event-loop delay and memory of this process. The delay histogram is sampled by Node itself
 * (perf_hooks); its statistics are those of the last complete window (the current one until
 * a first window completes).
 */
export function observeRuntime(meter: Meter): void {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const delayGauges = delayStatistics.map(([name, description, read]) => ({
    gauge: meter.createObservableGauge(name, {
      description: `${description} event-loop delay over the last complete ${DELAY_WINDOW_MS / 1000}-second window`,
      unit: "s",
    }),
    read,
  }));
  const memoryGauges = memoryFigures.map(([name, description, read]) => ({
    gauge: meter.createObservableGauge(name, { description, unit: "By" }),
    read,
  }));
  const statisticsOf = (histogram: DelayHistogram) =>
    // A window without samples has no percentiles: report nothing rather than NaN.
    histogram.count > 0 ? delayGauges.map(({ read }) => read(histogram) / NANOSECONDS_PER_SECOND) : undefined;
  let lastWindow: number[] | undefined;
  setInterval(() => {
    lastWindow = statisticsOf(delay) ?? lastWindow;
    delay.reset();
  }, DELAY_WINDOW_MS).unref();
  meter.addBatchObservableCallback(
    (result) => {
      const statistics = lastWindow ?? statisticsOf(delay);
      delayGauges.forEach(({ gauge }, index) => {
        if (statistics) result.observe(gauge, statistics[index]!);
      });
      const memory = process.memoryUsage();
      for (const { gauge, read } of memoryGauges) result.observe(gauge, read(memory));
    },
    [...delayGauges, ...memoryGauges].map(({ gauge }) => gauge),
  );
}
