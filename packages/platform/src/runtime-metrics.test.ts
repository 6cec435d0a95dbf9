import { setTimeout as sleep } from "node:timers/promises";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { expect, it } from "vitest";
import { observeRuntime } from "./runtime-metrics.js";

class CollectOnDemand extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

async function collectedValues(reader: MetricReader): Promise<Map<string, number>> {
  const { resourceMetrics } = await reader.collect();
  const values = new Map<string, number>();
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) values.set(metric.descriptor.name, Number(metric.dataPoints[0]?.value));
  }
  return values;
}

it("reports event-loop delay and memory, the same however often it is collected", async () => {
  const reader = new CollectOnDemand();
  const provider = new MeterProvider({ readers: [reader] });
  observeRuntime(provider.getMeter("test"));
  await sleep(100);
  const first = await collectedValues(reader);
  const second = await collectedValues(reader);
  for (const values of [first, second]) {
    expect(values.get("nodejs_heap_used_bytes")).toBeGreaterThan(0);
    expect(values.get("process_resident_memory_bytes")).toBeGreaterThan(values.get("nodejs_heap_used_bytes")!);
    expect(values.get("nodejs_eventloop_delay_p99_seconds")).toBeGreaterThan(0);
    expect(values.get("nodejs_eventloop_delay_max_seconds")).toBeGreaterThanOrEqual(
      values.get("nodejs_eventloop_delay_p50_seconds")!,
    );
  }
  await provider.shutdown();
});
