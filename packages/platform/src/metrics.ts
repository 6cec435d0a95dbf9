import type { IncomingMessage, ServerResponse } from "node:http";
import { type Meter, metrics } from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import type { Resource } from "@opentelemetry/resources";
import { MeterProvider, type MetricReader, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { observeRuntime } from "./runtime-metrics.js";

let provider: MeterProvider | undefined;
let prometheus: PrometheusExporter | undefined;

// Often enough for a dashboard's 1-minute rates, rare enough to cost nothing.
const DEFAULT_EXPORT_INTERVAL_MS = 15_000;

/**
 * Starts metrics for one service: always readable as Prometheus text at `/metrics` on the
 * service's admin port (servePrometheusMetrics), and pushed over OTLP when an endpoint is set.
 */
export function startMetrics(
  resource: Resource,
  otlpEndpoint: string | undefined,
  exportIntervalMs = DEFAULT_EXPORT_INTERVAL_MS,
): void {
  if (provider) return;
  // Served from the service's own admin server: one port per service to secure and probe.
  prometheus = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
  const readers: MetricReader[] = [prometheus];
  if (otlpEndpoint) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${otlpEndpoint.replace(/\/$/, "")}/v1/metrics` }),
        exportIntervalMillis: exportIntervalMs,
      }),
    );
  }
  provider = new MeterProvider({ resource, readers });
  metrics.setGlobalMeterProvider(provider);
  observeRuntime(gatewayMeter());
}

export async function stopMetrics(): Promise<void> {
  await provider?.shutdown();
  metrics.disable();
  provider = undefined;
  prometheus = undefined;
}

/**
 * The meter every gateway instrument comes from. The API's global meter is not a proxy:
 * instruments must be created after startMetrics (in main, or lazily), never at import.
 */
export function gatewayMeter(): Meter {
  return metrics.getMeter("gateway");
}

/** Answers a Prometheus scrape with every instrument's current value. */
export function servePrometheusMetrics(request: IncomingMessage, response: ServerResponse): void {
  if (!prometheus) {
    response.writeHead(503).end("metrics are not started\n");
    return;
  }
  prometheus.getMetricsRequestHandler(request, response);
}
