import type { PieceCostsSnapshot } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import { costTable, renderCostTable } from "./cost-table.js";

const snapshot = (pieces: PieceCostsSnapshot["pieces"]): PieceCostsSnapshot => ({ pieces, clockCostUs: 1 });

describe("the cost table", () => {
  const rows = costTable({
    requests: 100,
    pieces: {
      edge: {
        before: snapshot({ auth: { count: 10, cpuUs: 500, wallUs: 600 } }),
        after: snapshot({
          auth: { count: 110, cpuUs: 2_500, wallUs: 3_600 },
          validation: { count: 100, cpuUs: 4_000, wallUs: 5_000 },
        }),
      },
      router: {
        before: snapshot({}),
        after: snapshot({ spans: { count: 300, cpuUs: 1_500, wallUs: 1_800 } }),
      },
    },
    processCpuUs: { edge: 900, router: 400, ledger: 120, machine: 2_000 },
    gatewayMeanUs: 1_500,
    directMeanUs: 300,
  });
  const row = (process: string, name: string) => rows.find((entry) => entry.process === process && entry.name === name);

  it("gives each piece its CPU and wall time per request, counting only the measured run", () => {
    expect(row("edge", "authentication (key cache)")).toEqual({
      process: "edge",
      name: "authentication (key cache)",
      cpuUs: 20,
      wallUs: 30,
      perRequest: 1,
    });
    expect(row("router", "spans (context extracted, handler span)")).toMatchObject({ cpuUs: 15, perRequest: 3 });
    expect(row("router", "vendor call (undici, JSON read)")).toMatchObject({ cpuUs: 0, perRequest: 0 });
  });

  it("leaves to 'the rest' what the process spent beyond its timed pieces", () => {
    expect(row("edge", "the rest (HTTP, gRPC, protobuf, GC)")?.cpuUs).toBe(900 - 20 - 40);
    expect(row("router", "the rest (HTTP, gRPC, protobuf, GC)")?.cpuUs).toBe(400 - 15);
    expect(row("edge", "all of it (from /proc)")).toMatchObject({ cpuUs: 900, wallUs: 80 });
  });

  it("lists the processes billing alone uses, the machine, and the added latency", () => {
    expect(row("ledger", "its CPU")?.cpuUs).toBe(120);
    expect(rows.filter((entry) => entry.process === "machine")).toHaveLength(1);
    expect(row("gateway", "added latency, mean (gateway − simulator direct)")?.wallUs).toBe(1_200);
  });

  it("renders one markdown row per entry, blank where a figure does not apply", () => {
    const lines = renderCostTable(rows).split("\n");
    expect(lines).toHaveLength(rows.length + 2);
    expect(lines).toContain("| edge | authentication (key cache) | 20.0 | 30.0 | 1.00 |");
    expect(lines).toContain("| ledger | its CPU | 120.0 |  |  |");
    expect(lines.at(-1)).toBe("| gateway | added latency, mean (gateway − simulator direct) |  | 1,200.0 |  |");
  });
});
