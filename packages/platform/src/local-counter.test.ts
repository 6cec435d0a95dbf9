import type { Attributes } from "@opentelemetry/api";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { afterEach, expect, it } from "vitest";
import { localCounter, localUpDownCounter } from "./local-counter.js";

const providers: MeterProvider[] = [];

afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.shutdown()));
});

interface Adder {
  add(value: number, attributes?: Attributes): void;
}

const requestsOptions = { description: "Requests answered, by route and status" };
const inFlightOptions = { description: "Requests not yet answered" };
const tokensOptions = { description: "Tokens billed", unit: "{token}" };

// What the request path does: repeated label sets, one key order written two ways, a label
// present on some calls only, an array value, a counter's rejected negative increment, an
// up-down counter.
function exercise(requests: Adder, inFlight: Adder, tokens: Adder): void {
  for (let i = 0; i < 3; i++) {
    inFlight.add(1);
    requests.add(1, { route: "/v1/chat/completions", status: "200" });
    inFlight.add(-1);
  }
  inFlight.add(1);
  requests.add(1, { status: "200", route: "/v1/chat/completions" });
  requests.add(1, { route: "/v1/chat/completions", status: "400", error_type: "invalid_request_error" });
  requests.add(-5, { route: "/v1/chat/completions", status: "200" });
  tokens.add(12, { model: "gpt-4o", direction: "input" });
  tokens.add(30, { model: "gpt-4o", direction: "output" });
  tokens.add(0, { model: "gpt-4o", direction: "output" });
  tokens.add(7, { model: "gpt-4o", direction: "input" });
  for (let i = 0; i < 2; i++) tokens.add(5, { model: "gpt-4o", directions: ["input", "output"] });
}

/** A meter read as production reads it, and its Prometheus text at each call of `scrape`. */
function scrapedMeter() {
  const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
  const provider = new MeterProvider({ readers: [exporter] });
  providers.push(provider);
  const serializer = new PrometheusSerializer(undefined, false, undefined, true, true);
  const scrape = async () => serializer.serialize((await exporter.collect()).resourceMetrics);
  return { meter: provider.getMeter("gateway"), scrape };
}

it("exports the same Prometheus series, labels and totals as the synchronous counters it replaces", async () => {
  const plain = scrapedMeter();
  exercise(
    plain.meter.createCounter("gateway_requests_total", requestsOptions),
    plain.meter.createUpDownCounter("gateway_requests_in_flight", inFlightOptions),
    plain.meter.createCounter("gateway_tokens", tokensOptions),
  );
  const synchronous = await plain.scrape();
  const { meter, scrape } = scrapedMeter();
  exercise(
    localCounter(meter, "gateway_requests_total", requestsOptions),
    localUpDownCounter(meter, "gateway_requests_in_flight", inFlightOptions),
    localCounter(meter, "gateway_tokens", tokensOptions),
  );
  const local = await scrape();
  expect(local).toBe(synchronous);
  expect(local).toContain('gateway_requests_total{route="/v1/chat/completions",status="200"} 4');
  expect(local).toContain(
    'gateway_requests_total{route="/v1/chat/completions",status="400",error_type="invalid_request_error"} 1',
  );
  expect(local).toContain("gateway_requests_in_flight 1");
  expect(local).toContain('gateway_tokens_total{model="gpt-4o",direction="output"} 30');
  expect(local).toMatch(/gateway_tokens_total\{model="gpt-4o",directions=".*"\} 10/);
});

it("reports the running totals at every collection", async () => {
  const { meter, scrape } = scrapedMeter();
  const requests = localCounter(meter, "gateway_requests_total");
  requests.add(1, { status: "200" });
  expect(await scrape()).toContain('gateway_requests_total{status="200"} 1');
  requests.add(2, { status: "200" });
  expect(await scrape()).toContain('gateway_requests_total{status="200"} 3');
});
