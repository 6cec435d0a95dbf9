import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";

interface ExportedSpan {
  service: string;
  name: string;
  traceId: string;
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name: string; traceId: string }[] }[];
  }[];
}

// A minimal OTLP/HTTP JSON collector: what the services export is what this test reads.
const spans: ExportedSpan[] = [];
let collector: Server;
let stack: TestStack;

beforeAll(async () => {
  collector = createServer((request, response) => {
    let body = "";
    request.on("data", (part: Buffer) => {
      body += part.toString();
    });
    request.on("end", () => {
      const payload = JSON.parse(body) as OtlpExport;
      for (const resourceSpan of payload.resourceSpans ?? []) {
        const service =
          resourceSpan.resource?.attributes?.find((attribute) => attribute.key === "service.name")?.value.stringValue ??
          "";
        for (const scope of resourceSpan.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) spans.push({ service, name: span.name, traceId: span.traceId });
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  stack = await startTestStack({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
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
    spans.find((span) => span.service === "edge" && span.name === "POST /v1/chat/completions"),
  );
  const services = await eventually(async () => {
    const found = new Set(spans.filter((span) => span.traceId === edgeSpan.traceId).map((span) => span.service));
    return found.has("router") && found.has("ledger") ? found : undefined;
  });
  expect([...services].sort()).toEqual(["edge", "ledger", "router"]);
  expect(completion._request_id).toMatch(/^req_/);
});
