import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fromGrpcError, grpcTarget, insecureChannel, serviceClientOptions } from "@gateway/platform";
import { type ChannelTestReport, RouterServiceClient, TestChannelRequest } from "@gateway/proto/router/v1/router";
import { Metadata } from "@grpc/grpc-js";
import type { Command } from "./parse-arguments.js";

type ChannelTestCommand = Extract<Command, { kind: "channel-test" }>;

export interface RouterConnection {
  routerUrl: string;
  // Absent when the router takes unsigned calls (a stack started without a secret).
  serviceTokenSecret: string | undefined;
}

/**
 * Where a router is: GATEWAY_ROUTER_URL (with GATEWAY_SERVICE_TOKEN_SECRET), else what
 * `pnpm start` wrote to .gateway/stack.json. Testing a channel is the router's work: the
 * admin API, which every other command uses, has no vendor keys.
 */
export function resolveRouterConnection(env: NodeJS.ProcessEnv, directory: string): RouterConnection {
  if (env.GATEWAY_ROUTER_URL) {
    return { routerUrl: env.GATEWAY_ROUTER_URL, serviceTokenSecret: env.GATEWAY_SERVICE_TOKEN_SECRET || undefined };
  }
  let stack: { routerUrl?: unknown; serviceTokenSecret?: unknown } = {};
  try {
    stack = JSON.parse(readFileSync(join(directory, ".gateway", "stack.json"), "utf8"));
  } catch {
    // No local stack: the error below says what to set.
  }
  if (typeof stack.routerUrl !== "string") {
    throw new Error(
      "cannot find a router: set GATEWAY_ROUTER_URL (host:port, a list of them or a gRPC target) and GATEWAY_SERVICE_TOKEN_SECRET",
    );
  }
  const secret = typeof stack.serviceTokenSecret === "string" ? stack.serviceTokenSecret : undefined;
  return { routerUrl: stack.routerUrl, serviceTokenSecret: env.GATEWAY_SERVICE_TOKEN_SECRET || secret };
}

// A vendor that answers slowly still answers within this, for every key in turn.
const DEADLINE_MS = 300_000;

function askRouter({ routerUrl, serviceTokenSecret }: RouterConnection, request: TestChannelRequest) {
  const client = new RouterServiceClient(
    grpcTarget(routerUrl),
    insecureChannel(),
    serviceClientOptions("tools", serviceTokenSecret),
  );
  return new Promise<ChannelTestReport>((resolve, reject) => {
    client.testChannel(request, new Metadata(), { deadline: Date.now() + DEADLINE_MS }, (error, report) => {
      client.close();
      if (error) reject(fromGrpcError(error));
      else resolve(report);
    });
  });
}

function render(report: ChannelTestReport): string {
  const model =
    report.upstreamModel === report.model ? report.model : `${report.model} (vendor id ${report.upstreamModel})`;
  const lines = report.keys.map((key) => {
    const verdict = key.ok ? "ok" : key.refusal ? `refused (${key.refusal})` : "failed";
    const status = key.status === 0 ? "no answer" : `HTTP ${key.status}`;
    const disabled = key.disabled ? ", disabled on this router" : "";
    return `  ${key.maskedKey} [${key.keyId}]  ${verdict}  ${status}  ${key.latencyMs} ms${disabled}\n      ${key.answer || "(empty answer)"}`;
  });
  return [`Channel ${report.channel}, model ${model}:`, ...lines].join("\n");
}

/** `gw channel test NAME [--model M]`: what the vendor answered each of the channel's keys. */
export async function runChannelTest(command: ChannelTestCommand, connection: RouterConnection): Promise<string> {
  const request = TestChannelRequest.fromPartial({ channel: command.channel, model: command.model ?? "" });
  const report = await askRouter(connection, request);
  return command.json ? JSON.stringify(reportAsJson(report)) : render(report);
}

function reportAsJson(report: ChannelTestReport) {
  return {
    channel: report.channel,
    model: report.model,
    upstream_model: report.upstreamModel,
    keys: report.keys.map((key) => ({
      key_id: key.keyId,
      masked_key: key.maskedKey,
      ok: key.ok,
      latency_ms: Number(key.latencyMs),
      status: key.status,
      answer: key.answer,
      refusal: key.refusal || null,
      disabled: key.disabled,
    })),
  };
}
