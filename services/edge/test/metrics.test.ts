import {
  eventually,
  type MetricSample,
  type OtlpCollector,
  scrapeMetrics,
  startOtlpCollector,
  startTestStack,
  sumOf,
  type TestStack,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let collector: OtlpCollector;
let stack: TestStack;
let client: OpenAI;

beforeAll(async () => {
  collector = await startOtlpCollector();
  stack = await startTestStack({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      OTEL_TRACES_SAMPLER_ARG: "1",
      ROUTER_RETRY_BASE_MS: "20",
    },
  });
  const account = await stack.createAccount();
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });

  // The traffic every check below reads: two JSON answers, one stream, one unknown model,
  // and one vendor failure that a retry recovers from.
  const ask = (content: string) =>
    client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content }] });
  await ask("metrics one");
  await ask("metrics two");
  const stream = await client.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "metrics stream" }],
    stream: true,
  });
  for await (const _chunk of stream) {
    // Read to the end, so the stream's usage is reported.
  }
  await expect(
    client.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "x" }] }),
  ).rejects.toMatchObject({ status: 404 });
  const fault = await fetch(`${stack.simulatorUrl}/_sim/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ status: 500, api_key: "sim-openai-main" }),
  });
  expect(fault.ok).toBe(true);
  await ask("metrics retried");
});
afterAll(async () => {
  await stack?.teardown();
  collector?.close();
});

const scrape = (service: keyof TestStack["metricsUrls"]) => scrapeMetrics(stack.metricsUrls[service]);

/** Scrapes until `check` finds what it wants (counters settle after the answer has left). */
const scrapeUntil = (service: keyof TestStack["metricsUrls"], check: (samples: MetricSample[]) => boolean) =>
  eventually(async () => {
    const samples = await scrape(service);
    return check(samples) ? samples : undefined;
  });

describe("Prometheus /metrics on every service's admin port", () => {
  it("edge counts requests by route, model and status, and never labels an unknown model by name", async () => {
    const samples = await scrapeUntil(
      "edge",
      (found) =>
        (sumOf(found, "gateway_edge_requests_total", { route: "/v1/chat/completions", model: "gpt-4o-mini" }) ?? 0) >=
        4,
    );
    expect(
      sumOf(samples, "gateway_edge_requests_total", {
        route: "/v1/chat/completions",
        model: "gpt-4o-mini",
        status: "200",
        method: "POST",
      }),
    ).toBeGreaterThanOrEqual(4);
    expect(
      sumOf(samples, "gateway_edge_requests_total", {
        route: "/v1/chat/completions",
        model: "unknown",
        status: "404",
        error_type: "invalid_request_error",
      }),
    ).toBe(1);
    expect(samples.some((sample) => Object.values(sample.labels).includes("no-such-model"))).toBe(false);
    expect(
      sumOf(samples, "gateway_edge_request_duration_seconds_count", { route: "/v1/chat/completions" }),
    ).toBeGreaterThanOrEqual(5);
    expect(sumOf(samples, "gateway_edge_requests_in_flight")).toBe(0);
  });

  it("router reports requests, latency, time to first token, tokens, vendor calls, retries and circuits", async () => {
    const samples = await scrapeUntil(
      "router",
      (found) => (sumOf(found, "gateway_router_requests_total", { model: "gpt-4o-mini", outcome: "ok" }) ?? 0) >= 4,
    );
    const model = { model: "gpt-4o-mini", vendor: "openai" };
    expect(
      sumOf(samples, "gateway_router_requests_total", { ...model, endpoint: "/v1/chat/completions", outcome: "ok" }),
    ).toBe(4);
    expect(sumOf(samples, "gateway_router_request_duration_seconds_count", model)).toBe(4);
    expect(sumOf(samples, "gateway_router_time_to_first_token_seconds_count", model)).toBe(1);
    expect(sumOf(samples, "gateway_router_output_tokens_per_second_count", model)).toBe(4);
    expect(sumOf(samples, "gateway_router_tokens_total", { ...model, direction: "input" })).toBeGreaterThan(0);
    expect(sumOf(samples, "gateway_router_tokens_total", { ...model, direction: "output" })).toBeGreaterThan(0);
    expect(sumOf(samples, "gateway_router_vendor_calls_total", { ...model, error_type: "none" })).toBe(4);
    const failedCalls = samples.filter(
      (sample) => sample.name === "gateway_router_vendor_calls_total" && sample.labels.error_type !== "none",
    );
    expect(failedCalls.reduce((sum, sample) => sum + sample.value, 0)).toBe(1);
    expect(sumOf(samples, "gateway_router_retries_total", { ...model, kind: "retry" })).toBe(1);
    expect(sumOf(samples, "gateway_router_circuit_state", { channel: "openai-main" })).toBe(0);
    expect(sumOf(samples, "gateway_router_reservations_open")).toBe(0);
    expect(sumOf(samples, "gateway_usage_spool_bytes")).toBe(0);
    expect(sumOf(samples, "nodejs_heap_used_bytes")).toBeGreaterThan(0);
    expect(sumOf(samples, "nodejs_eventloop_delay_p99_seconds")).toBeGreaterThan(0);
  });

  it("ledger reports committed usage events, cost and tokens by model, batch latency and consumer lag", async () => {
    const samples = await scrapeUntil(
      "ledger",
      (found) => (sumOf(found, "gateway_ledger_usage_events_committed_total", { model: "gpt-4o-mini" }) ?? 0) >= 4,
    );
    expect(sumOf(samples, "gateway_ledger_usage_events_committed_total", { model: "gpt-4o-mini", outcome: "ok" })).toBe(
      4,
    );
    expect(sumOf(samples, "gateway_ledger_cost_micros_total", { model: "gpt-4o-mini" })).toBeGreaterThan(0);
    expect(
      sumOf(samples, "gateway_ledger_tokens_total", { model: "gpt-4o-mini", direction: "output" }),
    ).toBeGreaterThan(0);
    expect(sumOf(samples, "gateway_ledger_batch_duration_seconds_count", { result: "committed" })).toBeGreaterThan(0);
    expect(sumOf(samples, "gateway_ledger_consumer_pending_messages")).toBe(0);
    expect(sumOf(samples, "gateway_ledger_consumer_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sumOf(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
  });

  it("video reports its queue depth from Postgres and its usage spool", async () => {
    const samples = await scrape("video");
    expect(sumOf(samples, "gateway_video_queue_depth", { status: "pending" })).toBe(0);
    expect(sumOf(samples, "gateway_video_queue_depth", { status: "processing" })).toBe(0);
    expect(sumOf(samples, "gateway_usage_spool_bytes")).toBe(0);
    expect(sumOf(samples, "nodejs_heap_used_bytes")).toBeGreaterThan(0);
  });

  it("the admin port answers only GET on the paths it knows", async () => {
    const base = stack.metricsUrls.router.replace(/\/metrics$/, "");
    expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(405);
  });
});

describe("OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set", () => {
  it("every service pushes its metrics", async () => {
    const expected: Record<string, string> = {
      edge: "gateway_edge_requests_total",
      router: "gateway_router_requests_total",
      ledger: "gateway_ledger_usage_events_committed_total",
      video: "gateway_video_queue_depth",
    };
    await eventually(async () =>
      Object.entries(expected).every(([service, name]) => collector.metricNames.get(service)?.has(name))
        ? true
        : undefined,
    );
    for (const service of Object.keys(expected))
      expect(collector.metricNames.get(service)).toContain("nodejs_heap_used_bytes");
  });

  it("router spans carry the GenAI semantic-convention attributes", async () => {
    const span = await eventually(async () =>
      collector.spans.find(
        (candidate) => candidate.service === "router" && candidate.name === "router.chat_completion",
      ),
    );
    expect(span.attributes).toMatchObject({
      "gen_ai.system": "openai",
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.response.model": expect.any(String),
    });
    expect(span.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(span.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
  });
});
