import type { Piece, PieceCost, PieceCostsSnapshot } from "@gateway/platform";
import { round2 } from "./stats.js";

/** Each piece of the production path, where it runs and what the table calls it, in request order. */
export const tablePieces: ReadonlyArray<{ process: "edge" | "router"; piece: Piece; name: string }> = [
  { process: "edge", piece: "auth", name: "authentication (key cache)" },
  { process: "edge", piece: "body", name: "body read and parse" },
  { process: "edge", piece: "validation", name: "validation and translation to canonical" },
  { process: "edge", piece: "translation", name: "translation of the answer" },
  { process: "edge", piece: "router-call", name: "the gRPC call to router (edge's side)" },
  { process: "edge", piece: "metrics", name: "metrics" },
  { process: "edge", piece: "spans", name: "spans (root span, context injected)" },
  { process: "edge", piece: "logging", name: "logging" },
  { process: "router", piece: "admission", name: "reservation and rate limits (Redis)" },
  { process: "router", piece: "headers", name: "pre-vendor headers" },
  { process: "router", piece: "translation", name: "translation (vendor body and back)" },
  { process: "router", piece: "vendor", name: "vendor call (undici, JSON read)" },
  { process: "router", piece: "usage", name: "usage event and its journal" },
  { process: "router", piece: "usage-publish", name: "usage event's JetStream publish (after the answer)" },
  { process: "router", piece: "request-log", name: "request log capture (after the answer)" },
  { process: "router", piece: "metrics", name: "metrics" },
  { process: "router", piece: "spans", name: "spans (context extracted, handler span)" },
  { process: "router", piece: "logging", name: "logging" },
];

export interface CostTableInput {
  requests: number;
  /** Each process's /piece-costs before and after the measured run. */
  pieces: Record<"edge" | "router", { before: PieceCostsSnapshot; after: PieceCostsSnapshot }>;
  /** CPU µs per request of every process on the path (from /proc), the whole machine's among them. */
  processCpuUs: Record<string, number>;
  /** Mean latency at one connection, µs: the gateway's and the simulator's called directly. */
  gatewayMeanUs: number;
  directMeanUs: number;
}

export interface CostRow {
  process: string;
  name: string;
  cpuUs: number;
  /** Mean wall time per request; undefined where the piece is not on the request's path (a process of its own). */
  wallUs?: number;
  /** Times the piece ran per request. */
  perRequest?: number;
}

const zero: PieceCost = { count: 0, cpuUs: 0, wallUs: 0 };

function delta(before: PieceCostsSnapshot, after: PieceCostsSnapshot, piece: Piece): PieceCost {
  const a = after.pieces[piece] ?? zero;
  const b = before.pieces[piece] ?? zero;
  return { count: a.count - b.count, cpuUs: a.cpuUs - b.cpuUs, wallUs: a.wallUs - b.wallUs };
}

/**
 * The cost table's rows: each piece's CPU and wall time per request, then what is left of each
 * process's CPU (HTTP and HTTP/2 framing, express, grpc-js, protobuf, the garbage collector, the
 * clock's own reads), then the processes that only billing uses.
 */
export function costTable(input: CostTableInput): CostRow[] {
  const per = (value: number) => round2(value / Math.max(1, input.requests));
  const rows: CostRow[] = [];
  for (const process of ["edge", "router"] as const) {
    const { before, after } = input.pieces[process];
    let cpuSum = 0;
    let wallSum = 0;
    for (const entry of tablePieces.filter((row) => row.process === process)) {
      const cost = delta(before, after, entry.piece);
      cpuSum += cost.cpuUs;
      wallSum += cost.wallUs;
      rows.push({
        process,
        name: entry.name,
        cpuUs: per(cost.cpuUs),
        wallUs: per(cost.wallUs),
        perRequest: per(cost.count),
      });
    }
    const total = input.processCpuUs[process] ?? 0;
    rows.push({ process, name: "the rest (HTTP, gRPC, protobuf, GC)", cpuUs: round2(total - per(cpuSum)) });
    rows.push({ process, name: "all of it (from /proc)", cpuUs: round2(total), wallUs: per(wallSum) });
  }
  for (const [process, cpuUs] of Object.entries(input.processCpuUs)) {
    if (process === "edge" || process === "router" || process === "machine") continue;
    rows.push({ process, name: "its CPU", cpuUs: round2(cpuUs) });
  }
  rows.push({
    process: "machine",
    name: "busy CPU (every process, the load generator too)",
    cpuUs: round2(input.processCpuUs.machine ?? 0),
  });
  rows.push({
    process: "gateway",
    name: "added latency, mean (gateway − simulator direct)",
    cpuUs: Number.NaN,
    wallUs: round2(input.gatewayMeanUs - input.directMeanUs),
  });
  return rows;
}

const cell = (value: number | undefined, digits = 1) =>
  value === undefined || Number.isNaN(value)
    ? ""
    : value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function renderCostTable(rows: readonly CostRow[]): string {
  const lines = [
    "| process | piece | CPU µs / request | wall µs / request, 1 conn | runs / request |",
    "|---|---|---:|---:|---:|",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.process} | ${row.name} | ${cell(row.cpuUs)} | ${cell(row.wallUs)} | ${cell(row.perRequest, 2)} |`,
    );
  }
  return lines.join("\n");
}
