import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname } from "node:path";
import { serviceNode } from "@gateway/stack";
import type { FirstByteResult } from "./first-byte.js";
import { ms, perSecond, signedMs } from "./format.js";
import type { IngestResult } from "./ledger-ingest.js";
import { type LlmPacedResult, llmPacedReadmeRow, llmPacedTable } from "./llm-paced.js";
import type { LoadResult } from "./load.js";
import type { MemoryResult } from "./rss-sampler.js";
import { type Percentiles, round2 } from "./stats.js";
import { targetsTable } from "./targets.js";
import type { VideoBenchOptions, VideoResult } from "./video-tasks.js";

export interface LatencyComparison {
  connections: number;
  direct: LoadResult;
  gateway: LoadResult;
  addedMs: Percentiles;
  /** At one connection only: the bare hop (³), what the fixed stack adds before any gateway work. */
  hopFloor?: { result: LoadResult; addedMs: Percentiles };
}

export interface Settings {
  warmUpSeconds: number;
  seconds: number;
  streamWarmUp: number;
  streamRequests: number;
  video: VideoBenchOptions;
  llmPaced: { levels: readonly number[]; minSamples: number };
}

export interface Summary {
  date: string;
  /** The 1-minute load average just before the run: other work on the machine skews every number. */
  machine: { cpus: number; cpuModel: string; node: string; loadAverage: number };
  command: string;
  settings: Settings;
  latency: LatencyComparison[];
  throughput: {
    connections: number;
    direct: LoadResult;
    gateway: LoadResult;
    portkey: LoadResult;
    /** The architecture's bare hop with none of the gateway's work: the ceiling the fixed stack allows. */
    hopFloor: LoadResult;
  };
  firstByte: {
    direct: FirstByteResult;
    gateway: FirstByteResult;
    overheadMs: Percentiles;
    /** The bare hop streaming: a grpc-js server stream relaying the vendor's chunks. */
    hopFloor: { result: FirstByteResult; overheadMs: Percentiles };
  };
  memory: MemoryResult[];
  /** Ledger and video while the ingest and video steps ran. */
  billingMemory: MemoryResult[];
  families: FamilyComparison[];
  /**
   * The gateway as production runs it, on its own stack: spans exported (10 % sampled), rate limits
   * checked, request logs at the deployment's default capture; its services' memory sampled meanwhile.
   */
  productionSettings: {
    latency: LoadResult;
    throughput: LoadResult;
    firstByte: FirstByteResult;
    spansExported: number;
    memory: MemoryResult[];
  };
  billing: { ingest: IngestResult; reservationMs: Percentiles };
  video: VideoResult;
  llmPaced: LlmPacedResult;
}

export interface FamilyComparison {
  family: string;
  addedMs: Percentiles;
  firstFrameOverheadMs: Percentiles;
}

function familyRow({ family, addedMs, firstFrameOverheadMs }: FamilyComparison): string {
  return `| ${family} | ${signedMs(addedMs.p50)} / ${signedMs(addedMs.p99)} | ${signedMs(firstFrameOverheadMs.p50)} / ${signedMs(firstFrameOverheadMs.p99)} |`;
}

export function machine(): Summary["machine"] {
  const cores = cpus();
  return {
    cpus: cores.length,
    cpuModel: cores[0]?.model.trim() ?? "unknown",
    // The services' Node (and Portkey's), which may be newer than the one running the bench.
    node: execFileSync(serviceNode, ["--version"], { encoding: "utf8" }).trim(),
    loadAverage: round2(loadavg()[0] ?? 0),
  };
}

export function difference(gateway: Percentiles, direct: Percentiles): Percentiles {
  return { p50: round2(gateway.p50 - direct.p50), p99: round2(gateway.p99 - direct.p99) };
}

function latencyRows(comparison: LatencyComparison): string[] {
  const { connections, direct, gateway, addedMs, hopFloor } = comparison;
  const row = (p: "p50" | "p99", label: string, result: LoadResult, added: Percentiles) =>
    `| Non-streaming latency ${p}, ${connections} conn${label} (ms) | ${ms(direct.latencyMs[p])} | ${ms(result.latencyMs[p])} | — | ${signedMs(added[p])} |`;
  return [
    ...(["p50", "p99"] as const).map((p) => row(p, "", gateway, addedMs)),
    ...(hopFloor
      ? (["p50", "p99"] as const).map((p) => row(p, ", the bare hop³", hopFloor.result, hopFloor.addedMs))
      : []),
  ];
}

function throughputRows({ connections, direct, gateway, portkey, hopFloor }: Summary["throughput"]): string[] {
  const change = ((gateway.requestsPerSecond - direct.requestsPerSecond) / direct.requestsPerSecond) * 100;
  const vsPortkey = (run: LoadResult) => `${(run.requestsPerSecond / portkey.requestsPerSecond).toFixed(2)}x Portkey`;
  return [
    `| Saturation throughput, ${connections} conn (req/s) | ${perSecond(direct.requestsPerSecond)} | ${perSecond(gateway.requestsPerSecond)} | ${perSecond(portkey.requestsPerSecond)} | ${change.toFixed(1)} %, ${vsPortkey(gateway)} |`,
    `| Saturation throughput, ${connections} conn, the bare hop with no gateway work³ (req/s) | — | ${perSecond(hopFloor.requestsPerSecond)} | ${perSecond(portkey.requestsPerSecond)} | ${vsPortkey(hopFloor)} |`,
  ];
}

function productionSettingsRows(summary: Summary): string[] {
  const { latency, throughput, firstByte } = summary.productionSettings;
  const direct = summary.latency.find((comparison) => comparison.connections === 1)?.direct;
  const added = (p: "p50" | "p99") => (direct ? signedMs(latency.latencyMs[p] - direct.latencyMs[p]) : "—");
  const directFrame = summary.firstByte.direct.firstFrameMs;
  const portkey = summary.throughput.portkey.requestsPerSecond;
  return [
    ...(["p50", "p99"] as const).map(
      (p) =>
        `| Non-streaming latency ${p}, 1 conn, as production runs² (ms) | ${direct ? ms(direct.latencyMs[p]) : "—"} | ${ms(latency.latencyMs[p])} | — | ${added(p)} |`,
    ),
    `| Saturation throughput, ${throughput.connections} conn, as production runs² (req/s) | — | ${perSecond(throughput.requestsPerSecond)} | ${perSecond(portkey)} | ${(throughput.requestsPerSecond / portkey).toFixed(2)}x Portkey |`,
    ...(["p50", "p99"] as const).map(
      (p) =>
        `| Streaming time to first \`data:\` frame ${p}, as production runs² (ms) | ${ms(directFrame[p])} | ${ms(firstByte.firstFrameMs[p])} | n/a¹ | ${signedMs(firstByte.firstFrameMs[p] - directFrame[p])} |`,
    ),
  ];
}

function firstByteRows({ direct, gateway, overheadMs, hopFloor }: Summary["firstByte"]): string[] {
  const row = (p: "p50" | "p99", label: string, result: FirstByteResult, overhead: Percentiles) =>
    `| Streaming time to first \`data:\` frame ${p}${label} (ms) | ${ms(direct.firstFrameMs[p])} | ${ms(result.firstFrameMs[p])} | n/a¹ | ${signedMs(overhead[p])} |`;
  return [
    ...(["p50", "p99"] as const).map((p) => row(p, "", gateway, overheadMs)),
    ...(["p50", "p99"] as const).map((p) => row(p, ", the bare hop³", hopFloor.result, hopFloor.overheadMs)),
  ];
}

/** Requests that failed are excluded from the numbers, so say so whenever there were any. */
function failureNote(summary: Summary): string[] {
  const { direct, gateway, portkey, hopFloor } = summary.throughput;
  const { latency, throughput } = summary.productionSettings;
  const runs = [
    ...summary.latency.flatMap((l) => [l.direct, l.gateway, ...(l.hopFloor ? [l.hopFloor.result] : [])]),
    direct,
    gateway,
    portkey,
    hopFloor,
    latency,
    throughput,
  ];
  return runs
    .filter((run) => run.failed > 0)
    .map(
      (run) => `- ${run.target} at ${run.connections} conn: ${run.failed} failed requests (non-2xx or socket errors).`,
    );
}

function videoRows(video: VideoResult): string[] {
  const { submits, submitMs, submitMsFinishingAtOnce: atOnce, tasks, failedSubmits, tasksPerSecond } = video;
  const refused = failedSubmits > 0 ? `; ${failedSubmits} simultaneous submits refused` : "";
  return [
    "| Video tasks | Result |",
    "|---|---:|",
    `| Submit latency \`POST /v1/videos/generations\`, 1 conn (${submits} submits), renders in progress, p50 / p99 | ${ms(submitMs.p50)} / ${ms(submitMs.p99)} ms |`,
    `| The same while the pool finishes each task the moment it is submitted⁴, p50 / p99 | ${ms(atOnce.p50)} / ${ms(atOnce.p99)} ms |`,
    `| Worker pool throughput, submit to completed (${tasks} tasks${refused}) | ${tasksPerSecond.toFixed(1)} tasks/s |`,
  ];
}

export function renderMarkdown(summary: Summary): string {
  const { cpus: cores, cpuModel, node, loadAverage } = summary.machine;
  return [
    `Measured ${summary.date} on ${cores} × ${cpuModel}, Node ${node}, with \`${summary.command}\`.`,
    `The load generator shares the machine's cores with every service; the 1-minute load average before the run was ${loadAverage}.`,
    "",
    "| Measurement | Direct (simulator) | Gateway | Portkey | Gateway vs direct |",
    "|---|---:|---:|---:|---:|",
    ...summary.latency.flatMap(latencyRows),
    ...throughputRows(summary.throughput),
    ...firstByteRows(summary.firstByte),
    ...productionSettingsRows(summary),
    "",
    ...targetsTable(summary),
    "",
    "| Vendor family (1 connection, vs its own protocol on the simulator) | Added latency p50 / p99 | Streaming first-frame overhead p50 / p99 |",
    "|---|---:|---:|",
    ...summary.families.map(familyRow),
    "",
    "| Ledger and billing | Result | Target |",
    "|---|---:|---:|",
    `| Usage events committed by ledger while published (${summary.billing.ingest.events.toLocaleString("en-US")} events; publishing took ${summary.billing.ingest.publishSeconds} of ${summary.billing.ingest.seconds} s) | ${perSecond(summary.billing.ingest.eventsPerSecond)} /s | ≥ 15,000 /s |`,
    `| Usage events committed by ledger from a backlog (the same number already in the stream) | ${perSecond(summary.billing.ingest.backlog.eventsPerSecond)} /s | ≥ 15,000 /s |`,
    `| Cost reservation on the hot path, p50 / p99 | ${ms(summary.billing.reservationMs.p50)} / ${ms(summary.billing.reservationMs.p99)} ms | p50 < 0.3 ms |`,
    "",
    ...videoRows(summary.video),
    "",
    ...llmPacedTable(summary.llmPaced),
    "",
    "| Process | Peak VmRSS under load (MB) | VmHWM at end (MB) |",
    "|---|---:|---:|",
    ...summary.memory.map((m) => `| ${m.process} | ${m.peakRssMb.toFixed(1)} | ${m.hwmMb.toFixed(1)} |`),
    ...summary.productionSettings.memory.map(
      (m) => `| ${m.process}, as production runs² | ${m.peakRssMb.toFixed(1)} | ${m.hwmMb.toFixed(1)} |`,
    ),
    ...summary.billingMemory.map(
      (m) =>
        `| ${m.process}, during the ledger ingest and video runs | ${m.peakRssMb.toFixed(1)} | ${m.hwmMb.toFixed(1)} |`,
    ),
    "",
    "- Latency percentiles come from each response's own timing; autocannon's histogram has only 1 ms resolution (its figures are in tools/bench/results/latest.json).",
    `- Each load run follows a ${summary.settings.warmUpSeconds} s warm-up and lasts ${summary.settings.seconds} s; every run starts once the services are idle again.`,
    `- Streaming: ${summary.settings.streamRequests} sequential requests over one keep-alive connection, after ${summary.settings.streamWarmUp} unmeasured ones.`,
    `- Video: ${summary.settings.video.submits} sequential submits after ${summary.settings.video.warmUp} unmeasured ones, while the pool polls renders that outlast the run (as in use, where a render takes seconds to minutes); throughput runs from the first of ${summary.video.tasks} simultaneous submits to the last task completed, on the video service's default worker pool, with simulated jobs that finish at once.`,
    "- The stack runs with the catalogue's per-group rate limits removed: they would cap a saturation run by design.",
    "- ¹ Portkey's streaming path to a custom host does not work, so streaming is compared with the upstream only.",
    `- ² On a second stack as production runs: spans exported over OTLP, 10 % of new traces sampled (parent-based; ${summary.productionSettings.spansExported.toLocaleString("en-US")} spans exported), the catalogue's rate limits checked on every request (raised out of reach, so none is refused), and request logs captured at the deployment's default level (router's \`GATEWAY_REQUEST_LOG_CAPTURE\` left unset, so \`full\`: bodies kept up to 32 KiB; the bench account sets no level of its own). It also runs the console, so its memory is measured.`,
    "- ³ Not the gateway: express parsing the JSON body, one grpc-js unary call carrying it as bytes to a second process, and an undici keep-alive POST to the simulator, in the Gateway column (tools/bench/src/hop-floor.ts). It is the most the architecture's fixed stack (edge → gRPC → router → vendor) can do on this machine, before any key check, validation, billing, log or usage event. Streaming, the call is a grpc-js server stream instead: the second process relays the simulator's body chunk by chunk as stream messages, and the first writes each to the HTTP response as it arrives.",
    "- ⁴ Every submitted job finishes at once in the simulator, so the pool creates, polls, downloads, stores and bills each one (its whole per-task work) on the same two cores while the next submit is timed: the worst case, not the normal one.",
    "- ⁵ Busy ticks of the whole machine (`/proc/stat`) over the measured saturation run, divided by the requests sent: every process on the path (services, NATS, Postgres, Redis, the simulator), the load generator and anything else the shared machine runs. Portkey's and the bare hop's come from their own saturation runs in the main table.",
    "- ⁶ The larger of the sampled VmRSS and the kernel's VmHWM, over the runs of the main stack (latency, throughput, streaming) and of the stack as production runs; the console runs only on the latter.",
    `- ⁷ ${llmPacedNote(summary.llmPaced)}`,
    ...failureNote(summary),
  ].join("\n");
}

function llmPacedNote({ pace, minSamples }: LlmPacedResult): string {
  return [
    `On the main stack, after the runs above: each level holds that many streams open, each slot asking for answers back to back (\`[sim:delay_ms=${pace.firstTokenMs}] [sim:token_latency_ms=${pace.tokenMs}] [sim:tokens=${pace.tokens}]\`), the first ones started evenly over one answer's time to ramp up, then as many more as give at least ${minSamples} first tokens at full concurrency;`,
    "first-token delays are those of the streams after the first of each slot, over the simulator's own delay, against the simulator directly at the same concurrency (Added = gateway − direct);",
    "a stream is dropped unless it answers 200 and ends with `data: [DONE]` after a frame per token. CPU per token: edge's and router's CPU over the gateway run over the tokens relayed;",
    "RSS per open stream: (peak − idle VmRSS) over the most streams open at once. Waiting for a core: the share of the gateway run's wall time edge's and router's event loops were runnable but had no core (the shared machine's other work). The sweep stops at the first level that does not hold.",
    "Portkey has no row: 1.15.2 answers every streaming request to a custom host with a 500 (its log: `TypeError: immutable`, appending its own headers to the upstream's fetch response).",
  ].join(" ");
}

/**
 * The README's few rows: the gateway as production runs it against calling the simulator directly
 * and against Portkey; the whole report (every run, the targets, the notes) is on its own page.
 */
export function renderReadmeSummary(summary: Summary, reportLink: string): string {
  const { cpus: cores, cpuModel, node } = summary.machine;
  return [
    `Measured ${summary.date} on ${cores} × ${cpuModel}, Node ${node}, with \`${summary.command}\`, on a stack as production`,
    "runs it (spans exported, rate limits checked, request logs kept); the load generator shares the",
    `machine's ${cores} cores with every service, and Portkey's streaming to a custom host does not work.`,
    `Every run, the targets, the per-family rows, billing, video and memory: ${reportLink}.`,
    "",
    "| Measurement | Direct (simulator) | Gateway | Portkey | Gateway vs direct |",
    "|---|---:|---:|---:|---:|",
    ...productionSettingsRows(summary).map((row) =>
      row.replaceAll(", as production runs²", "").replaceAll("n/a¹", "n/a"),
    ),
    llmPacedReadmeRow(summary.llmPaced),
  ].join("\n");
}

/** The whole report as a page of its own. */
export function renderReportPage(summary: Summary): string {
  return [
    "# The latest benchmark",
    "",
    "`pnpm bench --write-readme` writes this page and the README's summary of it; it needs a quiet",
    "machine and takes about 10 minutes. Absolute figures move with the host, so compare figures",
    "within one table: the targets table judges each performance target against the bare hop and",
    "Portkey measured in the same run. [hot-path.md](hot-path.md) says what each row measures, what",
    "each change did, and why the throughput and CPU targets are out of reach on this stack;",
    "[ledger.md](ledger.md) and [video.md](video.md) the same for billing and video.",
    "",
    renderMarkdown(summary),
    "",
  ].join("\n");
}

export function writeJson(path: string, summary: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(summary, null, 2)}\n`);
}

const startMarker = "<!-- bench:start -->";
const endMarker = "<!-- bench:end -->";

/** Replaces the marked section of the README, or appends a Benchmark section holding the markers. */
export function updateReadme(path: string, markdown: string): void {
  const readme = readFileSync(path, "utf8");
  const block = `${startMarker}\n${markdown}\n${endMarker}`;
  const start = readme.indexOf(startMarker);
  const end = readme.indexOf(endMarker);
  if (start === -1 && end === -1) {
    writeFileSync(path, `${readme.trimEnd()}\n\n## Benchmark\n\n${block}\n`);
    return;
  }
  // A lone or reversed marker means someone edited by hand; guessing could eat their text.
  if (start === -1 || end < start) throw new Error(`${path} has a broken ${startMarker} … ${endMarker} pair`);
  writeFileSync(path, `${readme.slice(0, start)}${block}${readme.slice(end + endMarker.length)}`);
}
