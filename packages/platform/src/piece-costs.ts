import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The pieces of a request's work whose cost `pnpm bench --cost-table` reports
 * (docs/perf/hot-path.md, "The cost table").
 */
export type Piece =
  | "auth"
  | "body"
  | "validation"
  | "translation"
  | "router-call"
  | "admission"
  | "headers"
  | "vendor"
  | "usage"
  | "usage-publish"
  | "request-log"
  | "metrics"
  | "spans"
  | "logging";

export interface PieceCost {
  count: number;
  cpuUs: number;
  wallUs: number;
}

/**
 * Only with GATEWAY_PIECE_COSTS=1 outside production: each timed piece then reads the process's
 * CPU clock (a getrusage call) twice, which production must not pay. Read once, at import.
 */
export const pieceCostsEnabled = process.env.GATEWAY_PIECE_COSTS === "1" && process.env.GATEWAY_ENV === "development";

const totals = new Map<Piece, PieceCost>();
// CPU and wall time already given to some piece: a piece that closes subtracts what others
// took while it was open (a timer's work during a Redis wait, a span opened inside a piece).
let attributedCpuUs = 0;
let attributedWallUs = 0;

const cpuNowUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * Starts timing one piece and returns what stops it, or undefined when piece costs are off (the
 * production path then allocates nothing). The CPU is the whole process's over the piece's
 * interval, so it is the piece's own only where the process serves one request at a time: the
 * cost table's run uses one connection.
 */
export function startPiece(piece: Piece): (() => void) | undefined {
  if (!pieceCostsEnabled) return undefined;
  const cpuStart = cpuNowUs();
  const wallStart = performance.now() * 1000;
  const cpuBefore = attributedCpuUs;
  const wallBefore = attributedWallUs;
  return () => {
    const cpu = cpuNowUs() - cpuStart - (attributedCpuUs - cpuBefore);
    const wall = performance.now() * 1000 - wallStart - (attributedWallUs - wallBefore);
    attributedCpuUs += cpu;
    attributedWallUs += wall;
    const total = totals.get(piece) ?? { count: 0, cpuUs: 0, wallUs: 0 };
    total.count += 1;
    total.cpuUs += cpu;
    total.wallUs += wall;
    totals.set(piece, total);
  };
}

/** Times an awaited piece; a failure is timed too. */
export async function timePiece<T>(piece: Piece, work: () => Promise<T>): Promise<T> {
  const stop = startPiece(piece);
  if (!stop) return work();
  try {
    return await work();
  } finally {
    stop();
  }
}

/** What one start and stop of the clock cost, so the table can say how much of each piece is its measuring. */
function clockCostUs(): number {
  const rounds = 2_000;
  const cpuStart = cpuNowUs();
  for (let round = 0; round < rounds; round++) {
    cpuNowUs();
    performance.now();
    cpuNowUs();
    performance.now();
  }
  return (cpuNowUs() - cpuStart) / rounds;
}

export interface PieceCostsSnapshot {
  pieces: Partial<Record<Piece, PieceCost>>;
  clockCostUs: number;
}

export function pieceCostsSnapshot(): PieceCostsSnapshot {
  return { pieces: Object.fromEntries(totals), clockCostUs: clockCostUs() };
}

/** The admin port's `/piece-costs`: the totals since start, as JSON (the bench subtracts two reads). */
export function servePieceCosts(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(pieceCostsSnapshot()));
}
