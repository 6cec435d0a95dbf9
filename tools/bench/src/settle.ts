import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

// USER_HZ, the unit of the CPU times in /proc/<pid>/stat, is 100 on every mainstream Linux architecture.
export const ticksPerSecond = 100;

/** utime + stime of one process in ticks, or 0 once it is gone. */
export function cpuTicks(pid: number): number {
  try {
    // The command name (field 2) may contain spaces, so count fields from after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * Milliseconds the process's main thread (its event loop) spent runnable but waiting for a core,
 * from /proc/<pid>/schedstat; 0 once it is gone. A large share of wall time means the machine's
 * other work, not the process, set the pace.
 */
export function runQueueWaitMs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[1]) / 1e6;
  } catch {
    return 0;
  }
}

/** CPU ticks of every process whose command name is `command` (postgres backends, nats-server). */
export function commandTicks(command: string): number {
  let sum = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === command) sum += cpuTicks(Number(entry));
    } catch {
      // gone between the listing and the read
    }
  }
  return sum;
}

/** Busy ticks of the whole machine (all cores, everything but idle and iowait). */
export function machineBusyTicks(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
    .split("\n", 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return user! + nice! + system! + irq! + softirq! + steal!;
}

const totalTicks = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);

/**
 * Waits until the processes together use less than `maxCoreShare` of one core over a window:
 * work a previous run left behind (usage events still being written) must not be billed to the next one.
 * Resolves false when they stay busy past the timeout, so the caller can say the numbers may be skewed.
 */
export async function waitForIdle(pids: number[], maxCoreShare = 0.1, windowMs = 500, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let before = totalTicks(pids);
  while (Date.now() < deadline) {
    await sleep(windowMs);
    const after = totalTicks(pids);
    if ((after - before) / ticksPerSecond < (maxCoreShare * windowMs) / 1000) return true;
    before = after;
  }
  return false;
}
