import { rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { repoRoot, startOtlpCollector, startTestStack, type TestStack, testServers } from "@gateway/stack";
import { benchCatalogue } from "./bench-catalogue.js";
import { renderCostTable } from "./cost-table.js";
import { measureCostTable } from "./cost-table-run.js";
import { pathCounters } from "./cpu-meter.js";
import { measureFirstByte } from "./first-byte.js";
import { type HopFloor, startHopFloor } from "./hop-floor.js";
import { measureLedgerIngest } from "./ledger-ingest.js";
import { llmPacedTable, sweeps } from "./llm-paced.js";
import { measureLlmPaced } from "./llm-paced-run.js";
import { checkTarget, runLoad, type Target } from "./load.js";
import { type PortkeyGateway, startPortkey } from "./portkey.js";
import {
  difference,
  type FamilyComparison,
  type LatencyComparison,
  machine,
  renderMarkdown,
  renderReadmeSummary,
  renderReportPage,
  type Settings,
  type Summary,
  updateReadme,
  writeJson,
} from "./report.js";
import { measureReservationCost } from "./reservation-cost.js";
import { startRssSampler } from "./rss-sampler.js";
import { machineBusyTicks, waitForIdle } from "./settle.js";
import { issueTargets } from "./targets.js";
import { type FamilyTargets, familyTargets } from "./vendor-families.js";
import { measureVideoTasks } from "./video-tasks.js";

// `pnpm bench [--quick] [--write-readme]`: the gateway's overhead over calling the vendor directly.
// `pnpm bench --cost-table [--quick]`: only the cost table (each piece of the production path's CPU and latency).
// `pnpm bench --cost-table --leases MICROS`: the same (limits checked) with router admitting from
// admission leases of at most MICROS (0: every request reserved in Redis), to compare the two admissions.
// `pnpm bench --only llm-paced [--quick]`: only the LLM-paced row (streams held at a model's pace).

const usage = "usage: pnpm bench [--quick] [--write-readme] [--cost-table [--leases MICROS]] [--only llm-paced]";
const latencyConnections = [1, 32];
const saturationConnections = 64;
const resultsPath = `${repoRoot}tools/bench/results/latest.json`;
const llmPacedResultsPath = `${repoRoot}tools/bench/results/llm-paced.json`;
const readmePath = `${repoRoot}README.md`;
const reportPath = `${repoRoot}docs/perf/latest.md`;
// Whole-machine CPU per request at saturation, compared between gateways and the bare hop.
const saturationCpu = { machine: machineBusyTicks };

interface Flags {
  quick: boolean;
  writeReadme: boolean;
  costTable: boolean;
  /** The cost table admitting from leases of at most this many micro-yuan (0: reserving each request). */
  leases: number | undefined;
  /** One row of the report on its own: printed and written to its own JSON, never to the README. */
  only: "llm-paced" | undefined;
}

function parseFlags(args: string[]): Flags {
  let values: { quick?: boolean; "write-readme"?: boolean; "cost-table"?: boolean; leases?: string; only?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        quick: { type: "boolean" },
        "write-readme": { type: "boolean" },
        "cost-table": { type: "boolean" },
        leases: { type: "string" },
        only: { type: "string" },
      },
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${usage}`);
  }
  if (values.only !== undefined && values.only !== "llm-paced") throw new Error(`unknown row ${values.only}\n${usage}`);
  if (values.only && (values["write-readme"] || values["cost-table"])) {
    throw new Error(`--only runs one row, which writes neither the README nor the cost table\n${usage}`);
  }
  const leases = values.leases === undefined ? undefined : Number(values.leases);
  if (leases !== undefined && (!values["cost-table"] || !Number.isSafeInteger(leases) || leases < 0)) {
    throw new Error(`--leases takes the cost table's lease size in micro-yuan (0 or more)\n${usage}`);
  }
  return {
    quick: values.quick ?? false,
    leases,
    writeReadme: values["write-readme"] ?? false,
    costTable: values["cost-table"] ?? false,
    only: values.only,
  };
}

// --quick only proves every step works end to end; its numbers are too short-lived to quote.
const settingsFor = (quick: boolean): Settings =>
  quick
    ? {
        warmUpSeconds: 1,
        seconds: 2,
        streamWarmUp: 10,
        streamRequests: 30,
        video: { warmUp: 5, submits: 30, tasks: 40 },
        llmPaced: { levels: sweeps.quick, minSamples: 40 },
      }
    : {
        warmUpSeconds: 2,
        seconds: 8,
        streamWarmUp: 50,
        streamRequests: 200,
        video: { warmUp: 20, submits: 200, tasks: 200 },
        llmPaced: { levels: sweeps.full, minSamples: 200 },
      };

interface Targets {
  direct: Target;
  gateway: Target;
  portkey: Target;
  hopFloor: Target;
}

/** What every measurement needs: where to send requests, for how long, and whose CPU must be quiet first. */
interface Run {
  targets: Targets;
  settings: Settings;
  pids: number[];
}

/** Calling the simulator directly and through the gateway, with the same body. */
function stackTargets(stack: TestStack, apiKey: string): Pick<Targets, "direct" | "gateway"> {
  return {
    direct: {
      name: "direct",
      url: `${stack.simulatorUrl}/v1/chat/completions`,
      headers: { authorization: "Bearer sk-bench" },
    },
    gateway: {
      name: "gateway",
      url: `${stack.baseUrl}/chat/completions`,
      headers: { authorization: `Bearer ${apiKey}` },
    },
  };
}

function targetsFor(stack: TestStack, portkey: PortkeyGateway, floor: HopFloor, apiKey: string): Targets {
  return { ...stackTargets(stack, apiKey), portkey: portkey.target("portkey"), hopFloor: floor.target };
}

/** Logs the step and waits for the previous one's leftover work (usage events) to finish first. */
async function begin(run: Run, step: string): Promise<void> {
  progress(step);
  if (!(await waitForIdle(run.pids))) progress("services still busy after 30 s; measuring anyway");
}

async function compareLatency(run: Run): Promise<LatencyComparison[]> {
  const { targets, settings } = run;
  const comparisons: LatencyComparison[] = [];
  for (const connections of latencyConnections) {
    const options = { connections, warmUpSeconds: settings.warmUpSeconds, seconds: settings.seconds };
    await begin(run, `latency at ${connections} connection(s): direct`);
    const direct = await runLoad(targets.direct, options);
    await begin(run, `latency at ${connections} connection(s): gateway`);
    const gateway = await runLoad(targets.gateway, options);
    const comparison: LatencyComparison = {
      connections,
      direct,
      gateway,
      addedMs: difference(gateway.latencyMs, direct.latencyMs),
    };
    if (connections === 1) {
      await begin(run, "latency at 1 connection: the bare hop");
      const result = await runLoad(targets.hopFloor, options);
      comparison.hopFloor = { result, addedMs: difference(result.latencyMs, direct.latencyMs) };
    }
    comparisons.push(comparison);
  }
  return comparisons;
}

async function compareThroughput(run: Run): Promise<Summary["throughput"]> {
  const { targets, settings } = run;
  const options = {
    connections: saturationConnections,
    warmUpSeconds: settings.warmUpSeconds,
    seconds: settings.seconds,
    cpu: saturationCpu,
  };
  const measure = async (target: Target) => {
    await begin(run, `throughput at ${saturationConnections} connections: ${target.name}`);
    return runLoad(target, options);
  };
  const direct = await measure(targets.direct);
  const portkey = await measure(targets.portkey);
  const hopFloor = await measure(targets.hopFloor);
  const gateway = await measure(targets.gateway);
  return { connections: saturationConnections, direct, gateway, portkey, hopFloor };
}

async function compareFirstByte(run: Run): Promise<Summary["firstByte"]> {
  const { targets, settings } = run;
  const options = { warmUp: settings.streamWarmUp, requests: settings.streamRequests };
  await begin(run, "streaming first frame: direct");
  const direct = await measureFirstByte(targets.direct, options);
  await begin(run, "streaming first frame: gateway");
  const gateway = await measureFirstByte(targets.gateway, options);
  await begin(run, "streaming first frame: the bare hop");
  const hopFloor = await measureFirstByte(targets.hopFloor, options);
  return {
    direct,
    gateway,
    overheadMs: difference(gateway.firstFrameMs, direct.firstFrameMs),
    hopFloor: { result: hopFloor, overheadMs: difference(hopFloor.firstFrameMs, direct.firstFrameMs) },
  };
}

/** Added latency at one connection and streaming first-frame overhead, per vendor family. */
async function compareFamilies(run: Run, families: FamilyTargets[]): Promise<FamilyComparison[]> {
  const { settings } = run;
  const load = { connections: 1, warmUpSeconds: settings.warmUpSeconds, seconds: settings.seconds / 2 };
  const stream = { warmUp: settings.streamWarmUp, requests: settings.streamRequests / 2 };
  const results: FamilyComparison[] = [];
  for (const { family, direct, gateway } of families) {
    await begin(run, `family ${family}: latency`);
    const directLoad = await runLoad(direct, load);
    const gatewayLoad = await runLoad(gateway, load);
    await begin(run, `family ${family}: streaming first frame`);
    const directStream = await measureFirstByte(direct, stream);
    const gatewayStream = await measureFirstByte(gateway, stream);
    results.push({
      family,
      addedMs: difference(gatewayLoad.latencyMs, directLoad.latencyMs),
      firstFrameOverheadMs: difference(gatewayStream.firstFrameMs, directStream.firstFrameMs),
    });
  }
  return results;
}

/**
 * The gateway as production runs it, on a stack of its own: spans exported (sampled as by default,
 * 10 % of new traces), every request checked against its group's rate limits, request logs at the
 * deployment's default capture level, and the console running beside it.
 */
async function measureProductionSettings(settings: Settings, cleanup: Cleanup): Promise<Summary["productionSettings"]> {
  const catalogue = benchCatalogue("checked");
  cleanup.add(async () => rmSync(dirname(catalogue), { recursive: true, force: true }));
  const collector = await startOtlpCollector();
  cleanup.add(async () => collector.close());
  const stack = await startTestStack({
    env: {
      CATALOGUE_PATH: catalogue,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      // Unset even when the bench's own environment sets it, so router logs at the deployment's default level.
      GATEWAY_REQUEST_LOG_CAPTURE: undefined,
    },
    console: true,
  });
  cleanup.add(() => stack.teardown());
  const { api_key: apiKey } = await stack.createAccount({ group: "premium", creditYuan: 1_000_000 });
  const target = {
    name: "gateway as production runs",
    url: `${stack.baseUrl}/chat/completions`,
    headers: { authorization: `Bearer ${apiKey}` },
  };
  await checkTarget(target);
  const pids: Record<string, number> = {};
  for (const { name, child } of Object.values(stack.processes)) if (child.pid !== undefined) pids[name] = child.pid;
  const options = { warmUpSeconds: settings.warmUpSeconds, seconds: settings.seconds };
  const run: Run = {
    targets: { direct: target, gateway: target, portkey: target, hopFloor: target },
    settings,
    pids: Object.values(pids),
  };
  const sampler = startRssSampler(pids);
  await begin(run, "latency at 1 connection, as production runs");
  const latency = await runLoad(target, { ...options, connections: 1 });
  await begin(run, `throughput at ${saturationConnections} connections, as production runs`);
  // Each process on the path too, so the report can show what billing's processes cost per request.
  const cpu = pathCounters(pids);
  const throughput = await runLoad(target, { ...options, connections: saturationConnections, cpu });
  await begin(run, "streaming first frame, as production runs");
  const firstByte = await measureFirstByte(target, {
    warmUp: settings.streamWarmUp,
    requests: settings.streamRequests,
  });
  return { latency, throughput, firstByte, spansExported: collector.spans.length, memory: sampler.stop() };
}

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

/** Everything started so far, stopped in reverse order exactly once, whatever ends the run. */
class Cleanup {
  private readonly steps: Array<() => Promise<void>> = [];
  private running: Promise<void> | undefined;

  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse()) {
        await step().catch((error: unknown) => progress(`cleanup failed: ${String(error)}`));
      }
    })();
    return this.running;
  }
}

/** The main stack: the catalogue's rate limits removed, so only capacity limits a run. */
async function startBenchStack(cleanup: Cleanup): Promise<TestStack> {
  progress("starting the stack");
  const catalogue = benchCatalogue("removed");
  cleanup.add(async () => rmSync(dirname(catalogue), { recursive: true, force: true }));
  const stack = await startTestStack({ env: { CATALOGUE_PATH: catalogue } });
  cleanup.add(() => stack.teardown());
  return stack;
}

async function bench(flags: Flags, cleanup: Cleanup): Promise<Summary> {
  const settings = settingsFor(flags.quick);
  const host = machine();
  const stack = await startBenchStack(cleanup);
  progress("starting Portkey");
  const portkey = await startPortkey(`${stack.simulatorUrl}/v1`);
  cleanup.add(() => portkey.stop());
  const floor = await startHopFloor(`${stack.simulatorUrl}/v1/chat/completions`);
  cleanup.add(async () => floor.stop());
  // Ample credit in the premium group, so billing never refuses a request mid-run.
  const { api_key: apiKey } = await stack.createAccount({ group: "premium", creditYuan: 1_000_000 });
  const targets = targetsFor(stack, portkey, floor, apiKey);
  const families = familyTargets(stack.simulatorUrl, stack.baseUrl, apiKey);
  for (const target of families.flatMap((family) => [family.direct, family.gateway])) await checkTarget(target);
  for (const target of Object.values(targets)) await checkTarget(target);

  const pids: Record<string, number> = {};
  for (const service of [...Object.values(stack.processes), { name: "portkey", child: portkey.child }]) {
    if (service.child.pid !== undefined) pids[service.name] = service.child.pid;
  }
  const run: Run = { targets, settings, pids: [...Object.values(pids), ...Object.values(floor.pids)] };
  const sampler = startRssSampler(pids);
  const latency = await compareLatency(run);
  const throughput = await compareThroughput(run);
  const firstByte = await compareFirstByte(run);
  const memory = sampler.stop();
  // After the memory sampler stopped: thousands of open streams are not the saturation run's peak.
  const llmPaced = await measureLlmPacedOn(stack, targets, settings, (step) => begin(run, step));
  const familyResults = await compareFamilies(run, families);
  progress("starting a stack as production runs");
  const productionSettings = await measureProductionSettings(settings, cleanup);
  await begin(run, "ledger ingest");
  // Ledger and video under their own loads (the HTTP runs above barely touch video).
  const billingSampler = startRssSampler({ ledger: pids.ledger!, video: pids.video! });
  const ingestAccount = await stack.createAccount({ creditYuan: 1_000_000 });
  const ingest = await measureLedgerIngest(
    {
      natsUrl: testServers.natsUrl,
      namespace: stack.namespace,
      account: { accountId: ingestAccount.account_id, keyId: ingestAccount.key_id },
      ledgerPid: pids.ledger!,
    },
    flags.quick ? 2_000 : 20_000,
  );
  await begin(run, "reservation cost");
  const reservationMs = await measureReservationCost(testServers.redisUrl, stack.namespace, flags.quick ? 500 : 5_000);
  await begin(run, "video submit latency");
  const video = await measureVideoTasks(stack, apiKey, settings.video, (step) => begin(run, step));
  const billingMemory = billingSampler.stop();

  const command = ["pnpm bench", flags.quick && "--quick", flags.writeReadme && "--write-readme"].filter(Boolean);
  return {
    date: new Date().toISOString().slice(0, 10),
    machine: host,
    command: command.join(" "),
    settings,
    latency,
    throughput,
    firstByte,
    memory,
    billingMemory,
    families: familyResults,
    productionSettings,
    billing: { ingest, reservationMs },
    video,
    llmPaced,
  };
}

function measureLlmPacedOn(
  stack: TestStack,
  targets: Pick<Targets, "direct" | "gateway">,
  settings: Settings,
  begin: (step: string) => Promise<void>,
) {
  const pids = { edge: stack.processes.edge.child.pid!, router: stack.processes.router.child.pid! };
  return measureLlmPaced({ ...targets, pids, ...settings.llmPaced, begin });
}

/** `--only llm-paced`: the one row on a stack of its own, printed and kept in its own JSON. */
async function benchLlmPaced(flags: Flags, cleanup: Cleanup): Promise<void> {
  const settings = settingsFor(flags.quick);
  const host = machine();
  const stack = await startBenchStack(cleanup);
  const { api_key: apiKey } = await stack.createAccount({ group: "premium", creditYuan: 1_000_000 });
  const { direct, gateway } = stackTargets(stack, apiKey);
  for (const target of [direct, gateway]) await checkTarget(target);
  const pids = Object.values(stack.processes).flatMap(({ child }) => (child.pid === undefined ? [] : [child.pid]));
  const idle = (step: string) =>
    waitForIdle(pids).then((quiet) => progress(quiet ? step : `${step} (services still busy after 30 s)`));
  const result = await measureLlmPacedOn(stack, { direct, gateway }, settings, idle);
  const command = ["pnpm bench --only llm-paced", flags.quick && "--quick"].filter(Boolean).join(" ");
  console.log(
    [
      `Measured ${new Date().toISOString()} on ${host.cpus} × ${host.cpuModel}, Node ${host.node}, with \`${command}\`; 1-minute load average before the run ${host.loadAverage}.`,
      "",
      ...llmPacedTable(result),
    ].join("\n"),
  );
  writeJson(llmPacedResultsPath, { machine: host, command, ...result });
  progress(`wrote ${llmPacedResultsPath}`);
}

async function main(): Promise<number> {
  const cleanup = new Cleanup();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void cleanup.run().finally(() => process.exit(130)));
  }
  try {
    const flags = parseFlags(process.argv.slice(2));
    if (flags.costTable) {
      const result = await measureCostTable(settingsFor(flags.quick), progress, flags.leases);
      console.log(renderCostTable(result.rows));
      console.log(
        `\n${result.requests} requests; one read of the clock pair costs edge ${result.clockCostUs.edge.toFixed(2)} µs, router ${result.clockCostUs.router.toFixed(2)} µs (included in each piece)`,
      );
      return 0;
    }
    if (flags.only === "llm-paced") {
      await benchLlmPaced(flags, cleanup);
      return 0;
    }
    const summary = await bench(flags, cleanup);
    await cleanup.run();
    const markdown = renderMarkdown(summary);
    console.log(markdown);
    writeJson(resultsPath, { ...summary, targets: issueTargets(summary) });
    progress(`wrote ${resultsPath}`);
    if (flags.writeReadme) {
      writeFileSync(reportPath, renderReportPage(summary));
      updateReadme(readmePath, renderReadmeSummary(summary, "[docs/perf/latest.md](docs/perf/latest.md)"));
      progress(`wrote ${reportPath} and updated ${readmePath}`);
    }
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    return 1;
  } finally {
    await cleanup.run();
  }
}

// Exit explicitly: a client library's lingering handle must not keep a finished run alive.
process.exit(await main());
