import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

interface OtlpResource {
  attributes?: OtlpAttribute[];
}

interface OtlpExport {
  resourceSpans?: {
    resource?: OtlpResource;
    scopeSpans?: { spans?: { name: string; traceId: string; attributes?: OtlpAttribute[] }[] }[];
  }[];
  resourceMetrics?: { resource?: OtlpResource; scopeMetrics?: { metrics?: { name: string }[] }[] }[];
}

export interface CollectedSpan {
  service: string;
  name: string;
  traceId: string;
  attributes: Record<string, string | number | boolean | undefined>;
}

export interface OtlpCollector {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: CollectedSpan[];
  /** The names of the metrics each service (by service.name) has pushed. */
  metricNames: Map<string, Set<string>>;
  close(): void;
}

const serviceOf = (resource?: OtlpResource) =>
  resource?.attributes?.find((attribute) => attribute.key === "service.name")?.value.stringValue ?? "";

const attributeValue = ({ value }: OtlpAttribute) =>
  value.stringValue ??
  value.doubleValue ??
  value.boolValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue));

/** A minimal OTLP/HTTP JSON collector: what the services export is what a test reads. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const metricNames = new Map<string, Set<string>>();
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (part: Buffer) => {
      body += part.toString();
    });
    request.on("end", () => {
      const payload = JSON.parse(body) as OtlpExport;
      for (const resourceSpan of payload.resourceSpans ?? []) {
        const service = serviceOf(resourceSpan.resource);
        for (const scope of resourceSpan.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            const attributes = Object.fromEntries(
              (span.attributes ?? []).map((pair) => [pair.key, attributeValue(pair)]),
            );
            spans.push({ service, name: span.name, traceId: span.traceId, attributes });
          }
        }
      }
      for (const resourceMetric of payload.resourceMetrics ?? []) {
        const service = serviceOf(resourceMetric.resource);
        const names = metricNames.get(service) ?? new Set<string>();
        for (const scope of resourceMetric.scopeMetrics ?? []) {
          for (const metric of scope.metrics ?? []) names.add(metric.name);
        }
        metricNames.set(service, names);
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    metricNames,
    close: () => server.close(),
  };
}
