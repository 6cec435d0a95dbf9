import { billingStores } from "./cpu-meter.js";
import { ms, perSecond, signedMs } from "./format.js";
import { addedFirstTokenLimitMs, targetStreams } from "./llm-paced.js";
import type { LoadResult } from "./load.js";
import type { Summary } from "./report.js";

// The performance targets of issue 33, each judged against figures of the same run.

export interface TargetRow {
  measurement: string;
  measured: string;
  target: string;
  /** Undefined when the run has no figure for it. */
  met: boolean | undefined;
  note: string;
}

/** The figures the targets are judged on. */
export type TargetFigures = Pick<
  Summary,
  "machine" | "latency" | "throughput" | "firstByte" | "memory" | "productionSettings" | "llmPaced"
>;

const throughputVsPortkey = 1;
const throughputVsHopFloor = 0.5;
// Machine CPU per request the gateway's own work may add to the bare hop and billing's processes.
const cpuAllowanceMs = 0.4;
const addedLatencyAllowanceMs = { p50: 1, p99: 5 };
const firstFrameAllowanceMs = 0.5;
const peakRssLimitMb = 150;
const services = ["edge", "router", "ledger", "video", "console"];

const ratio = (value: number) => `${value.toFixed(2)}×`;

function machineCpuMs(run: LoadResult): number {
  const value = run.cpuMsPerRequest?.machine;
  if (value === undefined) throw new Error(`${run.target}: the run measured no machine CPU`);
  return value;
}

/** What billing's own processes (ledger, NATS, Postgres, Redis) spent per request as production runs. */
function billingCpuMs({ productionSettings }: TargetFigures): number | undefined {
  const production = productionSettings.throughput.cpuMsPerRequest;
  if (production?.ledger === undefined) return undefined;
  return billingStores.reduce((sum, store) => sum + (production[store] ?? 0), production.ledger);
}

/**
 * Whether any gateway on this stack could reach `factor` × Portkey's rate: the machine's cores
 * allow at most cores × 1000 ÷ rate CPU ms per request, and such a gateway costs at least the
 * bare hop plus what billing's own processes spent per request.
 */
function throughputReach(figures: TargetFigures, factor: number): string {
  const { machine, throughput } = figures;
  const hopFloor = throughput.hopFloor.cpuMsPerRequest?.machine;
  const billing = billingCpuMs(figures);
  if (hopFloor === undefined || billing === undefined) return "";
  const budget = (machine.cpus * 1000) / (factor * throughput.portkey.requestsPerSecond);
  const least = hopFloor + billing;
  const verdict = least > budget ? "out of reach on this machine" : "within reach";
  return `at ${ratio(factor)} Portkey's rate ${machine.cpus} cores allow ≤ ${ms(budget)} ms of machine CPU per request; the bare hop's ${ms(hopFloor)} + billing's processes' ${ms(billing)} = ${ms(least)} ms: ${verdict}`;
}

function throughputTargets(figures: TargetFigures): TargetRow[] {
  const { throughput, productionSettings } = figures;
  const production = productionSettings.throughput.requestsPerSecond;
  const row = (versus: LoadResult, name: string, factor: number, note = ""): TargetRow => ({
    measurement: `Saturation throughput, ${throughput.connections} conn, as production runs², vs ${name}`,
    measured: `${ratio(production / versus.requestsPerSecond)} (${perSecond(production)} vs ${perSecond(versus.requestsPerSecond)} req/s)`,
    target: `≥ ${ratio(factor)}`,
    met: production >= factor * versus.requestsPerSecond,
    note,
  });
  return [
    row(throughput.portkey, "Portkey", throughputVsPortkey, throughputReach(figures, throughputVsPortkey)),
    row(throughput.hopFloor, "the bare hop³", throughputVsHopFloor),
  ];
}

function cpuTarget(figures: TargetFigures): TargetRow {
  const { throughput, productionSettings } = figures;
  const production = machineCpuMs(productionSettings.throughput);
  const hopFloor = machineCpuMs(throughput.hopFloor);
  const billing = billingCpuMs(figures) ?? 0;
  const limit = hopFloor + billing + cpuAllowanceMs;
  return {
    measurement: `Machine CPU per request at saturation, ${throughput.connections} conn, as production runs²⁵`,
    measured: `${ms(production)} ms`,
    target: `≤ the bare hop's ${ms(hopFloor)} + billing's processes' ${ms(billing)} + ${ms(cpuAllowanceMs)} = ${ms(limit)} ms`,
    met: production <= limit,
    note: `Portkey: ${ms(machineCpuMs(throughput.portkey))} ms`,
  };
}

function latencyTargets({ latency, productionSettings }: TargetFigures): TargetRow[] {
  const oneConnection = latency.find((comparison) => comparison.connections === 1);
  if (!oneConnection?.hopFloor) throw new Error("the summary has no 1-connection latency of the bare hop");
  const { direct, hopFloor } = oneConnection;
  return (["p50", "p99"] as const).map((p) => {
    const added = productionSettings.latency.latencyMs[p] - direct.latencyMs[p];
    const limit = hopFloor.addedMs[p] + addedLatencyAllowanceMs[p];
    return {
      measurement: `Added latency ${p}, 1 conn, as production runs²`,
      measured: signedMs(added),
      target: `≤ the bare hop's³ ${signedMs(hopFloor.addedMs[p])} + ${ms(addedLatencyAllowanceMs[p])} = ${signedMs(limit)}`,
      met: added <= limit,
      note: "",
    };
  });
}

function firstFrameTarget({ firstByte, productionSettings }: TargetFigures): TargetRow {
  const overhead = productionSettings.firstByte.firstFrameMs.p50 - firstByte.direct.firstFrameMs.p50;
  const hopFloor = firstByte.hopFloor.overheadMs.p50;
  const limit = hopFloor + firstFrameAllowanceMs;
  return {
    measurement: "Streaming first frame p50 over direct, 1 conn, as production runs²",
    measured: signedMs(overhead),
    target: `≤ the bare hop's³ ${signedMs(hopFloor)} + ${ms(firstFrameAllowanceMs)} = ${signedMs(limit)}`,
    met: overhead <= limit,
    note: "",
  };
}

/** Each service's largest resident set on either stack, the sampled one or the kernel's high-water mark. */
function memoryTargets({ memory, productionSettings }: TargetFigures): TargetRow[] {
  const stacks = [
    { name: "on the main stack", memory },
    { name: "as production runs", memory: productionSettings.memory },
  ];
  return services.map((service) => {
    const peaks = stacks.flatMap(({ name, memory }) =>
      memory.filter((m) => m.process === service).map((m) => ({ name, mb: Math.max(m.peakRssMb, m.hwmMb) })),
    );
    const peak = peaks.reduce<(typeof peaks)[number] | undefined>(
      (top, p) => (top && top.mb >= p.mb ? top : p),
      undefined,
    );
    return {
      measurement: `Peak RSS at saturation, ${service}⁶`,
      measured: peak ? `${peak.mb.toFixed(1)} MB` : "not measured",
      target: `≤ ${peakRssLimitMb} MB`,
      met: peak && peak.mb <= peakRssLimitMb,
      note: peak ? `highest ${peak.name}` : "",
    };
  });
}

function llmPacedTarget({ llmPaced }: TargetFigures): TargetRow {
  const largest = llmPaced.levels.at(-1)?.streams;
  return {
    measurement: `Concurrent LLM-paced streams held⁷ (added first-token p99 < ${addedFirstTokenLimitMs} ms, none dropped)`,
    measured: llmPaced.held === undefined ? "none" : perSecond(llmPaced.held),
    target: `≥ ${perSecond(targetStreams)}`,
    met: llmPaced.levels.length === 0 ? undefined : (llmPaced.held ?? 0) >= targetStreams,
    note: largest === undefined ? "not measured" : `the sweep stopped at ${perSecond(largest)}`,
  };
}

export function issueTargets(summary: TargetFigures): TargetRow[] {
  return [
    ...throughputTargets(summary),
    cpuTarget(summary),
    ...latencyTargets(summary),
    firstFrameTarget(summary),
    ...memoryTargets(summary),
    llmPacedTarget(summary),
  ];
}

const metText = (met: boolean | undefined) => (met === undefined ? "—" : met ? "yes" : "no");

export function targetsTable(summary: TargetFigures): string[] {
  return [
    "| Targets (issue 33) | Measured | Target | Met | Note |",
    "|---|---:|---:|:---:|---|",
    ...issueTargets(summary).map(
      (row) => `| ${row.measurement} | ${row.measured} | ${row.target} | ${metText(row.met)} | ${row.note} |`,
    ),
  ];
}
