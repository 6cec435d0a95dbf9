import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { TaskLease } from "./task-lease.js";
import type { WorkerDependencies } from "./worker-dependencies.js";

// A lease that is released before its first heartbeat never writes, so it needs no database.
const deps = { leaseMs: 60_000 } as WorkerDependencies;

describe("a task lease", () => {
  it("leaves nothing on the pool's stopping signal once released, however many tasks ran", () => {
    const stopping = new AbortController();
    for (let task = 0; task < 50; task++) new TaskLease(deps, `task-${task}`, stopping.signal).release();
    expect(getEventListeners(stopping.signal, "abort")).toHaveLength(0);
  });

  it("is aborted when the pool stops while it is held", () => {
    const stopping = new AbortController();
    const lease = new TaskLease(deps, "task-held", stopping.signal);
    stopping.abort();
    expect(lease.signal.aborted).toBe(true);
    expect((lease.signal.reason as Error).message).toBe("worker stopping");
    lease.release();
  });
});
