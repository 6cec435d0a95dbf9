import { gatewayMeter } from "@gateway/platform";
import type { Counter, Gauge, Histogram } from "@opentelemetry/api";
import type { JsMsg } from "nats";
import type { UsageRow } from "./usage-rows.js";

const BATCH_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_SIZE_BUCKETS = [1, 5, 10, 50, 100, 250, 500, 1000];
const NANOSECONDS_PER_SECOND = 1e9;

/**
 * The usage consumer's instruments, created once at start-up. Model and vendor labels are
 * the catalogue ids router put in each event (validated on receipt), never client input.
 */
export class UsageMetrics {
  private readonly committed: Counter;
  private readonly duplicates: Counter;
  private readonly cost: Counter;
  private readonly tokens: Counter;
  private readonly batchDuration: Histogram;
  private readonly batchSize: Histogram;
  private readonly pending: Gauge;
  private readonly lag: Gauge;

  constructor(meter = gatewayMeter()) {
    this.committed = meter.createCounter("gateway_ledger_usage_events_committed_total", {
      description: "Usage events recorded (first delivery of each request id), by model, vendor and outcome",
    });
    this.duplicates = meter.createCounter("gateway_ledger_usage_events_duplicate_total", {
      description: "Usage events whose request id was already recorded (redeliveries, republished events)",
    });
    this.cost = meter.createCounter("gateway_ledger_cost_micros_total", {
      description: "Cost debited, in micro-yuan, by model and vendor",
    });
    this.tokens = meter.createCounter("gateway_ledger_tokens_total", {
      description: "Tokens recorded, by model, vendor and direction (input or output)",
    });
    this.batchDuration = meter.createHistogram("gateway_ledger_batch_duration_seconds", {
      description: "One batch's transaction and acks, by result (committed or failed)",
      unit: "s",
      advice: { explicitBucketBoundaries: BATCH_SECONDS_BUCKETS },
    });
    this.batchSize = meter.createHistogram("gateway_ledger_batch_size", {
      description: "Usage events per batch",
      advice: { explicitBucketBoundaries: BATCH_SIZE_BUCKETS },
    });
    this.pending = meter.createGauge("gateway_ledger_consumer_pending_messages", {
      description: "Usage events in the stream not yet delivered to this consumer, as of the last batch",
    });
    this.lag = meter.createGauge("gateway_ledger_consumer_lag_seconds", {
      description: "Age of the newest event of the last batch when it committed (publish to record)",
      unit: "s",
    });
  }

  batchCommitted(messages: readonly JsMsg[], inserted: readonly UsageRow[], seconds: number): void {
    this.batchDuration.record(seconds, { result: "committed" });
    this.batchSize.record(messages.length);
    this.duplicates.add(messages.length - inserted.length);
    for (const { model, outcomes, costMicros, promptTokens, completionTokens } of totalsByModel(inserted)) {
      for (const [outcome, count] of outcomes) this.committed.add(count, { ...model, outcome });
      this.cost.add(Number(costMicros), model);
      this.tokens.add(promptTokens, { ...model, direction: "input" });
      this.tokens.add(completionTokens, { ...model, direction: "output" });
    }
    const newest = messages.at(-1);
    if (newest) {
      this.pending.record(newest.info.pending);
      this.lag.record(Math.max(0, Date.now() / 1000 - newest.info.timestampNanos / NANOSECONDS_PER_SECOND));
    }
  }

  batchFailed(seconds: number): void {
    this.batchDuration.record(seconds, { result: "failed" });
  }
}

interface ModelTotals {
  model: { model: string; vendor: string };
  outcomes: Map<string, number>;
  costMicros: bigint;
  promptTokens: number;
  completionTokens: number;
}

/** The batch summed per model and vendor: a few counter updates per batch instead of four per event. */
function totalsByModel(rows: readonly UsageRow[]): Iterable<ModelTotals> {
  const totals = new Map<string, ModelTotals>();
  for (const row of rows) {
    // Length-prefixed, so no pair of ids can spell another pair's key.
    const group = `${row.model.length}:${row.model}${row.vendor}`;
    let total = totals.get(group);
    if (!total) {
      const model = { model: row.model, vendor: row.vendor };
      total = { model, outcomes: new Map(), costMicros: 0n, promptTokens: 0, completionTokens: 0 };
      totals.set(group, total);
    }
    total.outcomes.set(row.outcome, (total.outcomes.get(row.outcome) ?? 0) + 1);
    total.costMicros += row.costMicros;
    total.promptTokens += row.promptTokens;
    total.completionTokens += row.completionTokens;
  }
  return totals.values();
}
