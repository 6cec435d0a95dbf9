import { eventually, type OtlpCollector, startOtlpCollector, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";

let collector: OtlpCollector;
let stack: TestStack;

beforeAll(async () => {
  collector = await startOtlpCollector();
  stack = await startTestStack({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_TRACES_SAMPLER_ARG: "1" },
  });
});
afterAll(async () => {
  await stack?.teardown();
  collector?.close();
});

it("shares one trace id across edge, router and ledger for one request", async () => {
  const account = await stack.createAccount();
  const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  const completion = await client.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "trace me" }],
  });
  const edgeSpan = await eventually(async () =>
    collector.spans.find((span) => span.service === "edge" && span.name === "POST /v1/chat/completions"),
  );
  const services = await eventually(async () => {
    const found = new Set(
      collector.spans.filter((span) => span.traceId === edgeSpan.traceId).map((span) => span.service),
    );
    return found.has("router") && found.has("ledger") ? found : undefined;
  });
  expect([...services].sort()).toEqual(["edge", "ledger", "router"]);
  expect(completion._request_id).toMatch(/^req_/);
});
