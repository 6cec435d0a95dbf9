import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { PieceCostsSnapshot } from "@gateway/platform";
import { startOtlpCollector, startTestStack } from "@gateway/stack";
import { benchCatalogue } from "./bench-catalogue.js";
import { type CostRow, costTable } from "./cost-table.js";
import { pathCounters, startCpuMeter } from "./cpu-meter.js";
import { cannon, checkTarget, type Target } from "./load.js";
import { waitForIdle } from "./settle.js";

export interface CostTableResult {
  requests: number;
  rows: CostRow[];
  /** What one read of the clock pair costs each process, µs (a piece pays it once per run). */
  clockCostUs: Record<"edge" | "router", number>;
}

async function snapshot(metricsUrl: string): Promise<PieceCostsSnapshot> {
  const response = await fetch(metricsUrl.replace(/\/metrics$/, "/piece-costs"));
  if (!response.ok) throw new Error(`${metricsUrl}: /piece-costs answered ${response.status}`);
  return (await response.json()) as PieceCostsSnapshot;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

/**
 * The cost table: a stack as production runs (spans exported at 10 %, rate limits checked,
 * request logs at the default `full`) with GATEWAY_PIECE_COSTS=1, which makes edge and router
 * time each piece with the process's CPU clock; one connection, so each process serves one
 * request at a time and its CPU over a piece is that piece's.
 */
export async function measureCostTable(
  settings: { warmUpSeconds: number; seconds: number },
  progress: (step: string) => void,
  // Admission leases of at most this many micro-yuan, limits checked as without them (0: a reservation per request).
  leaseMaxMicros?: number,
): Promise<CostTableResult> {
  const catalogue = benchCatalogue("checked");
  const collector = await startOtlpCollector();
  const stack = await startTestStack({
    env: {
      CATALOGUE_PATH: catalogue,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      GATEWAY_REQUEST_LOG_CAPTURE: undefined,
      GATEWAY_PIECE_COSTS: "1",
      ...(leaseMaxMicros !== undefined && { ROUTER_ADMISSION_LEASE_MAX_MICROS: String(leaseMaxMicros) }),
    },
  });
  try {
    const { api_key: apiKey } = await stack.createAccount({ group: "premium", creditYuan: 1_000_000 });
    const gateway: Target = {
      name: "gateway, pieces timed",
      url: `${stack.baseUrl}/chat/completions`,
      headers: { authorization: `Bearer ${apiKey}` },
    };
    const direct: Target = {
      name: "direct",
      url: `${stack.simulatorUrl}/v1/chat/completions`,
      headers: { authorization: "Bearer sk-bench" },
    };
    await checkTarget(gateway);
    const pids: Record<string, number> = {};
    for (const { name, child } of Object.values(stack.processes)) if (child.pid !== undefined) pids[name] = child.pid;
    progress("cost table: the simulator directly, 1 connection");
    await waitForIdle(Object.values(pids));
    await cannon(direct, 1, settings.warmUpSeconds);
    const directRun = await cannon(direct, 1, settings.seconds);
    progress("cost table: the gateway, 1 connection");
    await cannon(gateway, 1, settings.warmUpSeconds);
    await waitForIdle(Object.values(pids));
    const urls = stack.metricsUrls;
    const before = { edge: await snapshot(urls.edge), router: await snapshot(urls.router) };
    const meter = startCpuMeter(pathCounters({ edge: pids.edge!, router: pids.router!, ledger: pids.ledger! }));
    const run = await cannon(gateway, 1, settings.seconds);
    // The usage events' publish and the request logs run after the answers: let the last ones finish.
    await waitForIdle([pids.router!, pids.ledger!]);
    const requests = run.result.requests.total;
    const cpuMs = meter(requests);
    const after = { edge: await snapshot(urls.edge), router: await snapshot(urls.router) };
    if (run.result.non2xx + run.result.errors > 0) throw new Error("cost table: some requests failed");
    const processCpuUs = Object.fromEntries(Object.entries(cpuMs).map(([name, value]) => [name, value * 1000]));
    return {
      requests,
      rows: costTable({
        requests,
        pieces: {
          edge: { before: before.edge, after: after.edge },
          router: { before: before.router, after: after.router },
        },
        processCpuUs,
        gatewayMeanUs: mean(run.timingsMs) * 1000,
        directMeanUs: mean(directRun.timingsMs) * 1000,
      }),
      clockCostUs: { edge: after.edge.clockCostUs, router: after.router.clockCostUs },
    };
  } finally {
    await stack.teardown();
    collector.close();
    rmSync(dirname(catalogue), { recursive: true, force: true });
  }
}
