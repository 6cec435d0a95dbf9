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

/**
 * Event-loop delay and memory of this process. The delay histogram is sampled by Node
 * itself (perf_hooks) and reset at each collection, so each value covers one interval.
 */
export function observeRuntime(meter: Meter): void {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const delayGauges = delayStatistics.map(([name, description, read]) => ({
    gauge: meter.createObservableGauge(name, {
      description: `${description} event-loop delay since the previous collection`,
      unit: "s",
    }),
    read,
  }));
  const memoryGauges = memoryFigures.map(([name, description, read]) => ({
    gauge: meter.createObservableGauge(name, { description, unit: "By" }),
    read,
  }));
  meter.addBatchObservableCallback(
    (result) => {
      // An interval without samples has no percentiles; skip rather than export NaN.
      if (delay.count > 0) {
        for (const { gauge, read } of delayGauges) result.observe(gauge, read(delay) / NANOSECONDS_PER_SECOND);
      }
      delay.reset();
      const memory = process.memoryUsage();
      for (const { gauge, read } of memoryGauges) result.observe(gauge, read(memory));
    },
    [...delayGauges, ...memoryGauges].map(({ gauge }) => gauge),
  );
}
