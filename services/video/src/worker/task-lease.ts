import { type TaskChanges, updateHeldTask } from "./update-held-task.js";
import type { WorkerDependencies } from "./worker-dependencies.js";

/**
 * A worker's hold on one processing task. Every write goes through `update`, which only
 * touches the row while this worker still holds it and it is still processing; a false
 * answer means the task was timed out or taken over, and the worker must drop it. A
 * heartbeat renews the lease at a third of its length and aborts `signal` when it is lost.
 */
export class TaskLease {
  private readonly controller = new AbortController();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly onStopping = () => this.controller.abort(new Error("worker stopping"));

  constructor(
    private readonly deps: WorkerDependencies,
    private readonly taskId: string,
    // The pool's, shared by every task it runs: a listener left on it would keep its lease for the process's life.
    private readonly stopping: AbortSignal,
  ) {
    stopping.addEventListener("abort", this.onStopping, { once: true });
    this.heartbeat = setInterval(() => void this.renew(), Math.max(50, Math.floor(deps.leaseMs / 3)));
  }

  /** Aborts when the lease is lost (or released), so vendor calls and waits stop at once. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  async update(changes: TaskChanges): Promise<boolean> {
    const count = await updateHeldTask(this.deps.pool, this.taskId, this.deps.workerId, changes);
    if (count === 0) this.controller.abort(new Error("lease lost"));
    return count === 1;
  }

  private async renew(): Promise<void> {
    if (this.controller.signal.aborted) return;
    try {
      await this.update({ leaseUntil: new Date(this.deps.clock.nowMs() + this.deps.leaseMs) });
    } catch (error) {
      // A database hiccup: the next beat tries again; the lease is long enough for a few misses.
      this.deps.logger.warn({ err: error, task_id: this.taskId }, "lease renewal failed");
    }
  }

  /** Hands the task back at once (the process is stopping), so another worker need not wait out the lease. */
  async handBack(): Promise<void> {
    await updateHeldTask(this.deps.pool, this.taskId, this.deps.workerId, { leaseUntil: null });
  }

  release(): void {
    clearInterval(this.heartbeat);
    this.stopping.removeEventListener("abort", this.onStopping);
    if (!this.controller.signal.aborted) this.controller.abort(new Error("lease released"));
  }
}
