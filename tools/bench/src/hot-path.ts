import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type OtlpCollector, startOtlpCollector, startTestStack } from "@gateway/stack";
import { benchCatalogue } from "./bench-catalogue.js";
import { pathCounters } from "./cpu-meter.js";
import { measureFirstByte } from "./first-byte.js";
import { startHopFloor } from "./hop-floor.js";
import { runLoad, type Target } from "./load.js";
import { startPortkey } from "./portkey.js";
import { difference, machine } from "./report.js";
import { startRssSampler } from "./rss-sampler.js";
import { waitForIdle } from "./settle.js";

// `node tools/bench/dist/hot-path.js [--quick] [--limits] [--tracing] [--profile DIR] [--out FILE]`:
// only the request hot path's rows of `pnpm bench` (1-connection latency, saturation throughput
// beside Portkey, streaming first frame, peak RSS), fast enough to compare one change at a time.
// --limits checks the catalogue's rate limits (raised out of reach), --tracing exports spans sampled as in production
// (OTEL_TRACES_SAMPLER_ARG, 10 % of new traces unless set), --profile writes edge's, router's and ledger's CPU profiles to DIR.

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    limits: { type: "boolean", default: false },
    tracing: { type: "boolean", default: false },
    profile: { type: "string" },
    // Extra Node options for edge and router only (heap limits, say), so one flag is compared at a time.
    "service-node-options": { type: "string", default: "" },
    out: { type: "string" },
  },
});

const seconds = flags.quick ? 3 : 8;
const warmUpSeconds = flags.quick ? 1 : 2;
const stream = flags.quick ? { warmUp: 20, requests: 100 } : { warmUp: 50, requests: 200 };

const progress = (message: string) => process.stderr.write(`hot-path: ${message}\n`);

function hotPathServiceEnv(profileDirectory: string | undefined, nodeOptions: string) {
  const dir = profileDirectory && resolve(profileDirectory);
  if (dir) mkdirSync(dir, { recursive: true });
  const preload = new URL("./cpu-profile-preload.js", import.meta.url).href;
  const env = (name: string, options: string) => ({
    NODE_OPTIONS: [options, dir && `--import=${preload}`].filter(Boolean).join(" "),
    ...(dir && { BENCH_CPU_PROFILE: join(dir, `${name}.cpuprofile`) }),
  });
  // Ledger is profiled too (the usage events' consumer), but keeps its own Node options.
  return {
    edge: env("edge", nodeOptions),
    router: env("router", nodeOptions),
    ...(dir && { ledger: env("ledger", "") }),
  };
}

/**
 * A warm-up run, then a measured one: percentiles from each response's own timing, requests per
 * second, and the CPU milliseconds the given processes (and, with any, the stores the usage event
 * passes through and the whole machine) spent per request.
 */
function measuredLoad(target: Target, connections: number, pids: Record<string, number>) {
  // With no processes named (the direct runs), nothing is counted.
  const cpu = Object.keys(pids).length > 0 ? pathCounters(pids) : undefined;
  return runLoad(target, { connections, warmUpSeconds, seconds, ...(cpu && { cpu }) });
}

async function main() {
  const cataloguePath = benchCatalogue(flags.limits ? "checked" : "removed");
  let collector: OtlpCollector | undefined;
  if (flags.tracing) collector = await startOtlpCollector();
  const tracingEnv = collector
    ? {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      }
    : {};
  progress("starting the stack");
  const stack = await startTestStack({
    env: { CATALOGUE_PATH: cataloguePath, ...tracingEnv },
    serviceEnv: hotPathServiceEnv(flags.profile, flags["service-node-options"]),
  });
  const portkey = await startPortkey(`${stack.simulatorUrl}/v1`);
  const floor = await startHopFloor(`${stack.simulatorUrl}/v1/chat/completions`);
  try {
    const { api_key: apiKey } = await stack.createAccount({ group: "premium", creditYuan: 1_000_000 });
    const direct: Target = {
      name: "direct",
      url: `${stack.simulatorUrl}/v1/chat/completions`,
      headers: { authorization: "Bearer sk-bench" },
    };
    const gateway: Target = {
      name: "gateway",
      url: `${stack.baseUrl}/chat/completions`,
      headers: { authorization: `Bearer ${apiKey}` },
    };
    const pids: Record<string, number> = {};
    for (const { name, child } of [...Object.values(stack.processes), { name: "portkey", child: portkey.child }]) {
      if (child.pid !== undefined) pids[name] = child.pid;
    }
    const begin = async (step: string) => {
      progress(step);
      await waitForIdle(Object.values(pids));
    };
    const sampler = startRssSampler(pids);
    await begin("latency, 1 connection");
    const directLatency = await measuredLoad(direct, 1, {});
    const gatewayLatency = await measuredLoad(gateway, 1, pids);
    const floorLatency = await measuredLoad(floor.target, 1, floor.pids);
    await begin("throughput, 64 connections");
    const directThroughput = await measuredLoad(direct, 64, {});
    await begin("throughput, portkey");
    const portkeyThroughput = await measuredLoad(portkey.target("portkey"), 64, { portkey: pids.portkey! });
    await begin("throughput, hop floor");
    const floorThroughput = await measuredLoad(floor.target, 64, floor.pids);
    await begin("throughput, gateway");
    const gatewayThroughput = await measuredLoad(gateway, 64, pids);
    await begin("streaming first frame");
    const directStream = await measureFirstByte(direct, stream);
    const gatewayStream = await measureFirstByte(gateway, stream);
    const memory = sampler.stop();
    const summary = {
      machine: machine(),
      flags,
      latency: {
        direct: directLatency.latencyMs,
        gateway: gatewayLatency.latencyMs,
        addedMs: difference(gatewayLatency.latencyMs, directLatency.latencyMs),
        hopFloorAddedMs: difference(floorLatency.latencyMs, directLatency.latencyMs),
        failed: gatewayLatency.failed,
        cpuMsPerRequest: gatewayLatency.cpuMsPerRequest,
      },
      throughput: {
        direct: directThroughput.requestsPerSecond,
        portkey: portkeyThroughput.requestsPerSecond,
        portkeyCpuMsPerRequest: portkeyThroughput.cpuMsPerRequest,
        gateway: gatewayThroughput.requestsPerSecond,
        vsPortkey: Math.round((gatewayThroughput.requestsPerSecond / portkeyThroughput.requestsPerSecond) * 100) / 100,
        hopFloor: floorThroughput.requestsPerSecond,
        hopFloorVsPortkey:
          Math.round((floorThroughput.requestsPerSecond / portkeyThroughput.requestsPerSecond) * 100) / 100,
        hopFloorCpuMsPerRequest: floorThroughput.cpuMsPerRequest,
        failed: gatewayThroughput.failed,
        cpuMsPerRequest: gatewayThroughput.cpuMsPerRequest,
      },
      firstFrame: {
        direct: directStream.firstFrameMs,
        gateway: gatewayStream.firstFrameMs,
        overheadMs: difference(gatewayStream.firstFrameMs, directStream.firstFrameMs),
      },
      peakRssMb: Object.fromEntries(memory.map((m) => [m.process, Math.max(m.peakRssMb, m.hwmMb)])),
      spansExported: collector?.spans.length,
    };
    const text = `${JSON.stringify(summary, null, 2)}\n`;
    process.stdout.write(text);
    if (flags.out) writeFileSync(flags.out, text);
  } finally {
    floor.stop();
    await portkey.stop();
    await stack.teardown();
    collector?.close();
    rmSync(join(cataloguePath, ".."), { recursive: true, force: true });
  }
}

await main();
// A client library's lingering handle must not keep a finished run alive.
process.exit(0);
