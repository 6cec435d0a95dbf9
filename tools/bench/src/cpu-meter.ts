import { commandTicks, cpuTicks, machineBusyTicks, ticksPerSecond } from "./settle.js";
import { round2 } from "./stats.js";

/** Named CPU tick counters: one process's, every process of one command's, the whole machine's. */
export type CpuCounters = Record<string, () => number>;

/**
 * Reads every counter now; the function returned gives each one's CPU milliseconds per request
 * since then. CPU time, unlike wall time, barely moves with the shared machine's other work.
 */
export function startCpuMeter(counters: CpuCounters): (requests: number) => Record<string, number> {
  const before = Object.fromEntries(Object.entries(counters).map(([name, read]) => [name, read()]));
  return (requests) =>
    Object.fromEntries(
      Object.entries(counters).map(([name, read]) => [
        name,
        round2(((read() - before[name]!) * 1000) / ticksPerSecond / Math.max(1, requests)),
      ]),
    );
}

// The stores a request's billing passes through: the usage event through NATS into Postgres, the reservation in Redis.
export const billingStores = ["nats-server", "postgres", "redis-server"];

/** Counters for each named process, every billing store and the whole machine. */
export function pathCounters(pids: Record<string, number>): CpuCounters {
  const counters: CpuCounters = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, () => cpuTicks(pid)]),
  );
  for (const command of billingStores) counters[command] = () => commandTicks(command);
  counters.machine = machineBusyTicks;
  return counters;
}
