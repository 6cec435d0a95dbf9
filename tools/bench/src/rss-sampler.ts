import { readFileSync } from "node:fs";
import { round2 } from "./stats.js";

export interface MemoryResult {
  process: string;
  /** Largest VmRSS seen by sampling while the load ran. */
  peakRssMb: number;
  /** The kernel's own high-water mark at the end, which also catches spikes between samples. */
  hwmMb: number;
}

export interface RssSampler {
  stop(): MemoryResult[];
}

/** Reads one `Vm*:   12345 kB` field of /proc/<pid>/status, in kB; undefined once the process is gone. */
function readStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

const toMb = (kb: number) => round2(kb / 1024);

/** Samples each process's resident set size every `intervalMs` until stopped. */
export function startRssSampler(pids: Record<string, number>, intervalMs = 200): RssSampler {
  const peakKb = new Map<string, number>();
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const rss = readStatusKb(pid, "VmRSS");
      if (rss !== undefined) peakKb.set(name, Math.max(peakKb.get(name) ?? 0, rss));
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return Object.entries(pids).map(([name, pid]) => ({
        process: name,
        peakRssMb: toMb(peakKb.get(name) ?? 0),
        hwmMb: toMb(readStatusKb(pid, "VmHWM") ?? 0),
      }));
    },
  };
}
