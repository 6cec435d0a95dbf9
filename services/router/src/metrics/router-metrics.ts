import type { Outcome, RequestFacts } from "@gateway/billing";
import type { CatalogueModel, Channel } from "@gateway/catalogue";
import type { KeyRefusal } from "@gateway/outbound-http";
import { GatewayError, type LocalCounter, localCounter, localUpDownCounter, startPiece } from "@gateway/platform";
import { UsageOutcome } from "@gateway/proto/events/v1/events";
import type { Attributes, Counter, Histogram, Meter } from "@opentelemetry/api";
import type { ChannelHealth } from "../routing/channel-health.js";
import type { FailoverObserver } from "../routing/run-with-failover.js";

// Seconds: from a fast cache hit to a long generation.
const LATENCY_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const THROUGHPUT_BUCKETS = [1, 5, 10, 25, 50, 100, 200, 400, 800];

const outcomeNames: Record<UsageOutcome, string> = {
  [UsageOutcome.USAGE_OUTCOME_UNSPECIFIED]: "unspecified",
  [UsageOutcome.USAGE_OUTCOME_OK]: "ok",
  [UsageOutcome.USAGE_OUTCOME_CLIENT_CANCELLED]: "client_cancelled",
  [UsageOutcome.USAGE_OUTCOME_VENDOR_ERROR]: "vendor_error",
  [UsageOutcome.USAGE_OUTCOME_STREAM_BROKEN]: "stream_broken",
  [UsageOutcome.UNRECOGNIZED]: "unspecified",
};

/** An error's class as a bounded label: the OpenAI error type it maps to, or internal. */
export function errorClass(error: unknown): string {
  return error instanceof GatewayError ? error.type : "internal";
}

/**
 * The router's instruments, created once at start-up. Every label value comes from the
 * catalogue (model ids, vendors, channel names) or a fixed set, never from the client.
 */
export class RouterMetrics {
  private readonly requests: LocalCounter;
  private readonly requestDuration: Histogram;
  private readonly firstToken: Histogram;
  private readonly outputSpeed: Histogram;
  private readonly tokens: LocalCounter;
  private readonly vendorCalls: LocalCounter;
  private readonly vendorCallDuration: Histogram;
  private readonly retries: LocalCounter;
  private readonly openReservations: LocalCounter;
  private readonly keysDisabled: Counter;
  private readonly channelsDisabled: Counter;
  private readonly observers = new Map<string, FailoverObserver>();

  constructor(
    meter: Meter,
    health: ChannelHealth,
    // Each serving channel's keys and how many of them the vendors refused.
    keyStates: () => Iterable<{ channel: string; keys: number; disabledKeys: number }> = () => [],
  ) {
    this.requests = localCounter(meter, "gateway_router_requests_total", {
      description: "Requests that reached a vendor call, by endpoint, model, vendor and outcome",
    });
    this.requestDuration = meter.createHistogram("gateway_router_request_duration_seconds", {
      description: "From admission to the last byte of the answer",
      unit: "s",
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    });
    this.firstToken = meter.createHistogram("gateway_router_time_to_first_token_seconds", {
      description: "From admission to the vendor's first streamed chunk",
      unit: "s",
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    });
    this.outputSpeed = meter.createHistogram("gateway_router_output_tokens_per_second", {
      description: "Completion tokens over the request's duration, per successful request",
      advice: { explicitBucketBoundaries: THROUGHPUT_BUCKETS },
    });
    this.tokens = localCounter(meter, "gateway_router_tokens_total", {
      description: "Tokens billed, by model and direction (input or output)",
    });
    this.vendorCalls = localCounter(meter, "gateway_router_vendor_calls_total", {
      description: "Vendor call attempts (each retry and failover counts), by channel and error class",
    });
    this.vendorCallDuration = meter.createHistogram("gateway_router_vendor_call_duration_seconds", {
      description: "One vendor attempt: the whole answer, or up to the first chunk for streams",
      unit: "s",
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    });
    this.retries = localCounter(meter, "gateway_router_retries_total", {
      description: "Attempts repeated after a retryable vendor failure; kind failover moved to another channel",
    });
    this.openReservations = localUpDownCounter(meter, "gateway_router_reservations_open", {
      description: "Requests whose worst-case cost is reserved and whose usage is not yet published",
    });
    const circuit = meter.createObservableGauge("gateway_router_circuit_state", {
      description: "Per channel: 0 closed, 1 open (cooling down), 2 half-open (one probe in flight)",
    });
    const failures = meter.createObservableGauge("gateway_router_channel_consecutive_failures", {
      description: "Vendor failures in a row per channel; the circuit opens at the threshold",
    });
    this.keysDisabled = meter.createCounter("gateway_channel_key_disabled_total", {
      description:
        "Channel keys disabled because the vendor refused them, by channel and reason (key_invalid, quota_exhausted)",
    });
    this.channelsDisabled = meter.createCounter("gateway_channel_disabled_total", {
      description: "Channels disabled because the vendor refused their last enabled key, by channel and reason",
    });
    const disabledKeys = meter.createObservableGauge("gateway_channel_disabled_keys", {
      description: "Per serving channel: keys disabled (refused by the vendor) until an operator re-enables them",
    });
    const disabledChannels = meter.createObservableGauge("gateway_channels_disabled", {
      description: "Serving channels whose every key is disabled: they serve nothing",
    });
    meter.addBatchObservableCallback(
      (result) => {
        for (const state of health.snapshots()) {
          result.observe(circuit, state.circuit, { channel: state.channel });
          result.observe(failures, state.consecutiveFailures, { channel: state.channel });
        }
        let channels = 0;
        for (const state of keyStates()) {
          result.observe(disabledKeys, state.disabledKeys, { channel: state.channel });
          if (state.disabledKeys >= state.keys) channels += 1;
        }
        result.observe(disabledChannels, channels);
      },
      [circuit, failures, disabledKeys, disabledChannels],
    );
  }

  /** A key the vendor refused was disabled; `channelDisabled` when it was its channel's last. */
  keyDisabled(channel: string, reason: KeyRefusal, channelDisabled: boolean): void {
    this.keysDisabled.add(1, { channel, reason });
    if (channelDisabled) this.channelsDisabled.add(1, { channel, reason });
  }

  reservationOpened(): void {
    this.openReservations.add(1);
  }

  /** The end of an admitted request: its usage is about to be published. */
  requestFinished(facts: RequestFacts, result: Outcome): void {
    this.openReservations.add(-1);
    const seconds = (Date.now() - facts.startedAt) / 1000;
    const model = { model: facts.model.id, vendor: facts.model.vendor };
    const attributes: Attributes = { ...model, endpoint: facts.endpoint, outcome: outcomeNames[result.outcome] };
    if (result.error) attributes.error_type = result.error.type;
    this.requests.add(1, attributes);
    this.requestDuration.record(seconds, attributes);
    const usage = result.usage;
    if (!usage) return;
    this.tokens.add(usage.promptTokens, { ...model, direction: "input" });
    this.tokens.add(usage.completionTokens, { ...model, direction: "output" });
    if (result.outcome === UsageOutcome.USAGE_OUTCOME_OK && usage.completionTokens > 0 && seconds > 0) {
      this.outputSpeed.record(usage.completionTokens / seconds, model);
    }
  }

  /** A stream's first chunk arrived from the vendor. */
  firstTokenArrived(facts: RequestFacts): void {
    this.firstToken.record((Date.now() - facts.startedAt) / 1000, {
      model: facts.model.id,
      vendor: facts.model.vendor,
      endpoint: facts.endpoint,
    });
  }

  /** What runWithFailover reports about one model's attempts (one observer per model, kept). */
  failoverObserver(model: CatalogueModel): FailoverObserver {
    let observer = this.observers.get(model.id);
    if (!observer) {
      const base = { model: model.id, vendor: model.vendor };
      observer = {
        attemptEnded: (channel: Channel, durationMs: number, error?: unknown) => {
          const timed = startPiece("metrics");
          const attributes = { ...base, channel: channel.name, error_type: error ? errorClass(error) : "none" };
          this.vendorCalls.add(1, attributes);
          this.vendorCallDuration.record(durationMs / 1000, attributes);
          timed?.();
        },
        retrying: (channel: Channel, failover: boolean) =>
          this.retries.add(1, { ...base, channel: channel.name, kind: failover ? "failover" : "retry" }),
      };
      this.observers.set(model.id, observer);
    }
    return observer;
  }
}
