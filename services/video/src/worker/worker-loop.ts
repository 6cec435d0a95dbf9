import { findVideoModel } from "../tasks/find-video-model.js";
import { claimTasks } from "./claim-tasks.js";
import { purgeExpired } from "./purge-expired.js";
import { republishUsage } from "./republish-usage.js";
import { runTask } from "./run-task.js";
import { timeOutTasks } from "./time-out-tasks.js";
import type { WorkerDependencies } from "./worker-dependencies.js";

export interface WorkerSettings {
  concurrency: number;
  tickMs: number;
  taskTimeoutMs: number;
}

export interface WorkerLoop {
  /** Stops claiming and hands the tasks in hand back for other workers (their vendor jobs keep running). */
  stop(): Promise<void>;
}

const SWEEP_LIMIT = 100;

/**
 * One worker: every tick it fails timed-out tasks (cancelling their vendor jobs), claims as
 * many tasks as it has free slots and runs each on its own, republishes usage a crashed worker
 * left unpublished and purges tasks older than 24 hours (callbacks have their own loop, see
 * callbacks/deliver-callbacks.ts). Any number of these may run, in one process or many.
 */
export function startWorkerLoop(deps: WorkerDependencies, settings: WorkerSettings): WorkerLoop {
  const running = new Set<Promise<void>>();
  let stopped = false;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> = Promise.resolve();

  const sweepTimeouts = async () => {
    const timedOut = await timeOutTasks(deps.pool, {
      now: deps.clock.now(),
      timeoutMs: settings.taskTimeoutMs,
      limit: SWEEP_LIMIT,
    });
    await Promise.all(
      timedOut.map(async (task) => {
        deps.logger.info({ task_id: task.id, vendor_job_id: task.vendorJobId }, "video task timed out");
        deps.metrics.taskEnded(task, "timed_out", deps.clock.now());
        await deps.reservations.release(task);
        if (!task.vendorJobId) return;
        try {
          const video = findVideoModel(deps.catalogue, task.model, task.modelGroup);
          const channel = video.model.channels.find((candidate) => candidate.name === task.channel) ?? video.channel;
          await deps.vendor.cancel(channel, task.vendorJobId, AbortSignal.timeout(10_000));
        } catch (error) {
          deps.logger.warn({ err: error, task_id: task.id }, "could not cancel the vendor job of a timed-out task");
        }
      }),
    );
  };

  const claim = async () => {
    const free = settings.concurrency - running.size;
    if (free <= 0) return;
    const tasks = await claimTasks(deps.pool, {
      workerId: deps.workerId,
      now: deps.clock.now(),
      leaseMs: deps.leaseMs,
      limit: free,
    });
    for (const task of tasks) {
      const run = runTask(deps, task, stopping.signal).finally(() => {
        running.delete(run);
        // A free slot: look for more work now rather than at the next tick.
        if (!stopped) schedule(0);
      });
      running.add(run);
    }
  };

  const purge = async () => {
    const { purged, fileErrors } = await purgeExpired(deps.pool, deps.storage, {
      now: deps.clock.now(),
      limit: SWEEP_LIMIT,
    });
    if (purged > 0) deps.logger.info({ purged }, "purged expired video tasks");
    for (const error of fileErrors) deps.logger.warn({ err: error }, "could not remove an expired video file");
  };

  const republish = async () => {
    const published = await republishUsage(deps, { now: deps.clock.now(), limit: SWEEP_LIMIT });
    if (published > 0) deps.logger.warn({ published }, "republished the usage of completed video tasks");
  };

  const tick = async () => {
    for (const step of [sweepTimeouts, claim, republish, purge]) {
      if (stopped) return;
      try {
        await step();
      } catch (error) {
        deps.logger.error({ err: error }, "video worker step failed; retrying next tick");
      }
    }
  };

  function schedule(delayMs: number) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      // One tick at a time: a tick requested during another runs right after it.
      ticking = ticking.then(tick).finally(() => {
        if (!stopped && !timer) schedule(settings.tickMs);
      });
    }, delayMs);
  }

  schedule(0);
  return {
    async stop() {
      stopped = true;
      stopping.abort();
      if (timer) clearTimeout(timer);
      await ticking;
      await Promise.allSettled(running);
    },
  };
}
