import {
  type Attributes,
  context,
  propagation,
  type Span,
  SpanStatusCode,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  NoopSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { startMetrics, stopMetrics } from "./metrics.js";
import { startPiece } from "./piece-costs.js";

let provider: NodeTracerProvider | undefined;

/** The OTEL_* settings of commonConfig (config.ts). */
export interface TelemetrySettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_METRIC_EXPORT_INTERVAL?: number | undefined;
  OTEL_TRACES_SAMPLER_ARG?: number | undefined;
}

// The share of new traces recorded: a recorded span costs each hop far more CPU than the
// request itself (attributes, timing, export), so production keeps a sample.
const DEFAULT_TRACE_RATIO = 0.1;

/**
 * Starts tracing and metrics for one service. Spans are always created (so logs carry a
 * trace id and context flows to the next hop) but only exported when an OTLP endpoint is
 * set; metrics are always readable at the admin port's /metrics (metrics.ts). Only the
 * tracer and meter providers are loaded, not the whole Node SDK (logs, every exporter),
 * which cost each service tens of megabytes and start-up time for nothing. A new trace is
 * recorded with probability OTEL_TRACES_SAMPLER_ARG; a hop follows its caller's decision, so a
 * trace is whole or absent. Unrecorded spans still carry the trace id to logs and the next hop.
 */
export function startTelemetry(serviceName: string, settings: TelemetrySettings): void {
  if (provider) return;
  const otlpEndpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporting = otlpEndpoint
    ? new BatchSpanProcessor(new OTLPTraceExporter({ url: `${otlpEndpoint.replace(/\/$/, "")}/v1/traces` }), {
        scheduledDelayMillis: 200,
      })
    : new NoopSpanProcessor();
  const resource = resourceFromAttributes({ "service.name": serviceName });
  const ratio = settings.OTEL_TRACES_SAMPLER_ARG ?? DEFAULT_TRACE_RATIO;
  provider = new NodeTracerProvider({
    resource,
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
    spanProcessors: [exporting],
  });
  // Baggage carries the request id (request-context.ts) to the next service's logs.
  provider.register({
    propagator: new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  });
  startMetrics(resource, otlpEndpoint, settings.OTEL_METRIC_EXPORT_INTERVAL);
}

export async function stopTelemetry(): Promise<void> {
  await Promise.all([provider?.shutdown(), stopMetrics()]);
  provider = undefined;
}

export const tracer = trace.getTracer("gateway");

/**
 * The active span when it belongs to a trace that is not recorded: under the parent-based
 * sampler every span below it would be unrecorded too, so a child adds nothing but its cost.
 */
function unrecordedParent(): Span | undefined {
  const parent = trace.getActiveSpan();
  if (!parent) return undefined;
  const spanContext = parent.spanContext();
  return trace.isSpanContextValid(spanContext) && (spanContext.traceFlags & TraceFlags.SAMPLED) === 0
    ? parent
    : undefined;
}

/**
 * Runs `work` inside a new active span that ends (and records failure) when it settles. In a
 * trace that is not recorded (90 % of them by default) `work` runs under the caller's span as it
 * is, with no span, context switch or wrapper of its own; logs and the next hop still see the
 * trace id.
 */
export async function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  const unrecorded = unrecordedParent();
  if (unrecorded) return work(unrecorded);
  const opening = startPiece("spans");
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    opening?.();
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      const ending = startPiece("spans");
      span.end();
      ending?.();
    }
  });
}

/** Records on a span that the work it covers threw `error`; ending the span stays the caller's. */
export function markFailed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

export function currentTraceId(): string | undefined {
  return trace.getActiveSpan()?.spanContext().traceId;
}

/** Writes the active trace context into any string map (gRPC metadata, NATS headers). */
export function injectTraceContext(set: (key: string, value: string) => void): void {
  const injecting = startPiece("spans");
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  for (const [key, value] of Object.entries(carrier)) set(key, value);
  injecting?.();
}

/** Reads a remote parent out of a string map and runs `work` under it. */
export function withExtractedContext<T>(get: (key: string) => string | undefined, work: () => T): T {
  const extracting = startPiece("spans");
  const carrier: Record<string, string> = {};
  for (const key of propagation.fields()) {
    const value = get(key);
    if (value !== undefined) carrier[key] = value;
  }
  const parent = propagation.extract(context.active(), carrier);
  extracting?.();
  return context.with(parent, work);
}
