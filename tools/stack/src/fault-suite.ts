import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./repo-paths.js";

/**
 * How long the fault suite's outages and soak last: short in the test command (CI's two
 * cores), the full lengths with `FAULT_SUITE_LONG=1` (`FAULT_SOAK_MINUTES` sets the soak).
 */
export const faultSuite = (() => {
  const long = process.env.FAULT_SUITE_LONG === "1";
  const soakMinutes = Number(process.env.FAULT_SOAK_MINUTES ?? (long ? 30 : 1.5));
  return { long, outageMs: long ? 30_000 : 6_000, soakMs: soakMinutes * 60_000 };
})();

/** Bytes of usage events waiting in a stack's spools (router's and video's) for NATS. */
export function spooledBytes(namespace: string): number {
  const spoolRoot = join(repoRoot, ".gateway/spool");
  let total = 0;
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else total += statSync(path).size;
    }
  };
  for (const directory of [namespace, `${namespace}-video`]) {
    try {
      walk(join(spoolRoot, directory));
    } catch {
      // No spool yet: nothing waits.
    }
  }
  return total;
}
