import { describe, expect, it } from "vitest";
import type { FirstByteResult } from "./first-byte.js";
import type { LlmPacedResult, PacedLevel } from "./llm-paced.js";
import type { LoadResult } from "./load.js";
import type { MemoryResult } from "./rss-sampler.js";
import { issueTargets, type TargetFigures, targetsTable } from "./targets.js";

const load = (target: string, requestsPerSecond: number, p50: number, p99: number, machineMs?: number): LoadResult => ({
  target,
  connections: 64,
  seconds: 8,
  ok: requestsPerSecond * 8,
  failed: 0,
  requestsPerSecond,
  latencyMs: { p50, p99 },
  autocannonLatencyMs: { p50: Math.floor(p50), p99: Math.floor(p99) },
  ...(machineMs !== undefined && { cpuMsPerRequest: { machine: machineMs } }),
});
const frame = (target: string, p50: number): FirstByteResult => ({
  target,
  requests: 200,
  firstFrameMs: { p50, p99: p50 * 3 },
});
const rss = (process: string, peakRssMb: number, hwmMb = peakRssMb): MemoryResult => ({ process, peakRssMb, hwmMb });
const pacedLevel = (streams: number): PacedLevel => ({ streams }) as PacedLevel;
const llmPaced = (levels: readonly number[], held: number | undefined): LlmPacedResult => ({
  pace: { firstTokenMs: 300, tokenMs: 20, tokens: 300 },
  minSamples: 200,
  levels: levels.map(pacedLevel),
  held,
});

/** Every target met: over twice Portkey's throughput, half its CPU, within every allowance. */
function passing(): TargetFigures {
  const direct = load("direct", 9000, 0.5, 1);
  return {
    machine: { cpus: 2, cpuModel: "test", node: "v24", loadAverage: 0 },
    latency: [
      {
        connections: 1,
        direct,
        gateway: load("gateway", 1200, 0.9, 2.5),
        addedMs: { p50: 0.4, p99: 1.5 },
        hopFloor: { result: load("hop floor", 1500, 0.7, 1.8), addedMs: { p50: 0.2, p99: 0.8 } },
      },
    ],
    throughput: {
      connections: 64,
      direct,
      gateway: load("gateway", 7000, 5, 9, 0.25),
      portkey: load("portkey", 3000, 20, 40, 0.6),
      hopFloor: load("hop floor", 10000, 4, 8, 0.15),
    },
    firstByte: {
      direct: frame("direct", 0.3),
      gateway: frame("gateway", 0.8),
      overheadMs: { p50: 0.5, p99: 1.5 },
      hopFloor: { result: frame("hop floor", 0.6), overheadMs: { p50: 0.3, p99: 0.9 } },
    },
    memory: ["edge", "router", "ledger", "video", "simulator"].map((name) => rss(name, 120)),
    productionSettings: {
      latency: load("gateway as production runs", 1100, 0.9, 2.7),
      throughput: load("gateway as production runs", 6500, 6, 10, 0.3),
      firstByte: frame("gateway as production runs", 1.0),
      spansExported: 100,
      memory: ["edge", "router", "ledger", "video", "console"].map((name) => rss(name, 100)),
    },
    llmPaced: llmPaced([50, 100, 200, 400, 800, 1000, 1600], 1000),
  };
}

const throughputMet = (figures: TargetFigures) =>
  issueTargets(figures)
    .slice(0, 2)
    .map((row) => row.met);
const metOf = (figures: TargetFigures) =>
  Object.fromEntries(issueTargets(figures).map((row) => [row.measurement, row.met]));

describe("issue 33's targets", () => {
  it("are all met when every figure is within its target", () => {
    expect(Object.values(metOf(passing()))).toEqual(Array(12).fill(true));
  });

  it("judges throughput against both Portkey's and the bare hop's", () => {
    const figures = passing();
    // 0.97x Portkey's (3,000), and under 0.5x the bare hop's (10,000).
    figures.productionSettings.throughput.requestsPerSecond = 2900;
    const rows = issueTargets(figures);
    expect(rows[0]).toMatchObject({ measured: "0.97× (2,900 vs 3,000 req/s)", target: "≥ 1.00×", met: false });
    expect(rows[1]?.met).toBe(false);
    figures.productionSettings.throughput.requestsPerSecond = 4900;
    expect(throughputMet(figures)).toEqual([true, false]);
    figures.productionSettings.throughput.requestsPerSecond = 5000;
    expect(throughputMet(figures)).toEqual([true, true]);
  });

  it("allows the bare hop's CPU plus billing's processes' plus 0.4 ms", () => {
    const figures = passing();
    figures.throughput.hopFloor.cpuMsPerRequest = { machine: 0.35 };
    figures.productionSettings.throughput.cpuMsPerRequest = {
      machine: 1.06,
      ledger: 0.1,
      "nats-server": 0.1,
      postgres: 0.05,
      "redis-server": 0.05,
    };
    const cpu = issueTargets(figures)[2]!;
    expect(cpu).toMatchObject({
      measured: "1.06 ms",
      target: "≤ the bare hop's 0.35 + billing's processes' 0.30 + 0.40 = 1.05 ms",
      met: false,
      note: "Portkey: 0.60 ms",
    });
    figures.productionSettings.throughput.cpuMsPerRequest.machine = 1.04;
    expect(issueTargets(figures)[2]?.met).toBe(true);
  });

  it("says when billing's processes and the bare hop alone leave no room for Portkey's rate", () => {
    const figures = passing();
    // 2 cores at 3,000 req/s allow 0.67 ms per request.
    figures.throughput.hopFloor.cpuMsPerRequest = { machine: 0.4 };
    figures.productionSettings.throughput.cpuMsPerRequest = {
      machine: 0.6,
      ledger: 0.1,
      "nats-server": 0.05,
      postgres: 0.05,
      "redis-server": 0.05,
    };
    expect(issueTargets(figures)[0]?.note).toBe(
      "at 1.00× Portkey's rate 2 cores allow ≤ 0.67 ms of machine CPU per request; the bare hop's 0.40 + billing's processes' 0.25 = 0.65 ms: within reach",
    );
    figures.productionSettings.throughput.cpuMsPerRequest.ledger = 0.2;
    expect(issueTargets(figures)[0]?.note).toMatch(/= 0\.75 ms: out of reach on this machine$/);
  });

  it("allows the bare hop's added latency plus 1 ms at p50 and 5 ms at p99", () => {
    const figures = passing();
    // Added p50 = 1.7 - 0.5 = +1.20 ms against 0.2 + 1 = +1.20 ms; p99 = 6.81 - 1 = +5.81 ms against 0.8 + 5 = +5.80 ms.
    figures.productionSettings.latency.latencyMs = { p50: 1.7, p99: 6.81 };
    const [p50, p99] = issueTargets(figures).slice(3, 5);
    expect(p50).toMatchObject({
      measured: "+1.20 ms",
      target: "≤ the bare hop's³ +0.20 ms + 1.00 = +1.20 ms",
      met: true,
    });
    expect(p99).toMatchObject({ measured: "+5.81 ms", met: false });
  });

  it("allows the bare hop's first-frame overhead plus 0.5 ms", () => {
    const figures = passing();
    figures.productionSettings.firstByte = frame("gateway as production runs", 1.2);
    expect(issueTargets(figures)[5]).toMatchObject({
      measured: "+0.90 ms",
      target: "≤ the bare hop's³ +0.30 ms + 0.50 = +0.80 ms",
      met: false,
    });
  });

  it("takes each service's highest memory on either stack, high-water mark included", () => {
    const figures = passing();
    figures.memory = [rss("router", 140, 155), rss("edge", 120)];
    figures.productionSettings.memory = [rss("router", 145), rss("edge", 130)];
    const memory = issueTargets(figures).slice(6, 11);
    expect(memory.map((row) => [row.measurement, row.measured, row.met, row.note])).toEqual([
      ["Peak RSS at saturation, edge⁶", "130.0 MB", true, "highest as production runs"],
      ["Peak RSS at saturation, router⁶", "155.0 MB", false, "highest on the main stack"],
      ["Peak RSS at saturation, ledger⁶", "not measured", undefined, ""],
      ["Peak RSS at saturation, video⁶", "not measured", undefined, ""],
      ["Peak RSS at saturation, console⁶", "not measured", undefined, ""],
    ]);
  });

  it("holds the LLM-paced sweep to 1,000 streams, and says where it stopped", () => {
    const figures = passing();
    figures.llmPaced = llmPaced([50, 100, 200, 400], 200);
    expect(issueTargets(figures)[11]).toMatchObject({
      measurement: "Concurrent LLM-paced streams held⁷ (added first-token p99 < 50 ms, none dropped)",
      measured: "200",
      target: "≥ 1,000",
      met: false,
      note: "the sweep stopped at 400",
    });
    figures.llmPaced = llmPaced([50], undefined);
    expect(issueTargets(figures)[11]).toMatchObject({ measured: "none", met: false });
    figures.llmPaced = llmPaced([], undefined);
    expect(issueTargets(figures)[11]).toMatchObject({ met: undefined, note: "not measured" });
  });

  it("renders one row per target with yes, no or a dash", () => {
    const figures = passing();
    figures.productionSettings.throughput.requestsPerSecond = 2900;
    figures.productionSettings.memory = [];
    figures.memory = [];
    const table = targetsTable(figures);
    expect(table.slice(0, 2)).toEqual([
      "| Targets (issue 33) | Measured | Target | Met | Note |",
      "|---|---:|---:|:---:|---|",
    ]);
    expect(table).toHaveLength(14);
    expect(table[2]).toBe(
      "| Saturation throughput, 64 conn, as production runs², vs Portkey | 0.97× (2,900 vs 3,000 req/s) | ≥ 1.00× | no |  |",
    );
    expect(table[4]).toMatch(/\| yes \| Portkey: 0\.60 ms \|$/);
    expect(table.at(-2)).toBe("| Peak RSS at saturation, console⁶ | not measured | ≤ 150 MB | — |  |");
  });
});
