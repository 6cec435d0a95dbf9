import { Worker } from "node:worker_threads";
import { GatewayError } from "@gateway/platform";
import type { ConversationLimits } from "../http/conversation-bounds.js";
import type { ConversationJob, JobResult, PreparedBytes } from "./conversation-worker.js";
import type { ConversationTask } from "./prepare-conversation.js";

interface Pending {
  job: ConversationJob;
  resolve: (prepared: PreparedBytes) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  busy?: Pending;
}

// Each worker holds one large body's parse at a time; the body budget bounds how many wait.
const workerHeapMb = 192;

/**
 * A few worker threads that parse, bound, validate, translate and encode large conversations,
 * one body each at a time, so that linear work runs beside the event loop every tenant's
 * requests share instead of on it. Workers start when first needed; one that dies fails only
 * the job it held and is replaced by the next job.
 */
export class ConversationWorkers {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private next = 0;

  constructor(
    private readonly size: number,
    private readonly limits: ConversationLimits,
  ) {}

  prepare(task: ConversationTask, bytes: Uint8Array): Promise<PreparedBytes> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { id: this.next++, task, bytes, limits: this.limits }, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((candidate) => candidate.busy === undefined) ?? this.spawn();
      if (!slot) return;
      const pending = this.queue.shift()!;
      slot.busy = pending;
      slot.worker.postMessage(pending.job);
    }
  }

  private spawn(): Slot | undefined {
    if (this.slots.length >= this.size) return undefined;
    const worker = new Worker(new URL("./conversation-worker.js", import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: workerHeapMb },
    });
    // Graceful shutdown waits for requests, not for idle workers.
    worker.unref();
    const slot: Slot = { worker };
    worker.on("message", (result: JobResult) => {
      const pending = slot.busy;
      slot.busy = undefined;
      if (pending) settle(pending, result);
      this.dispatch();
    });
    const lose = (reason: string) => {
      const index = this.slots.indexOf(slot);
      if (index === -1) return;
      this.slots.splice(index, 1);
      slot.busy?.reject(new Error(`the conversation worker stopped: ${reason}`));
      this.dispatch();
    };
    worker.on("error", (error) => lose(error.message));
    worker.on("exit", (code) => lose(`exit code ${code}`));
    this.slots.push(slot);
    return slot;
  }
}

function settle(pending: Pending, result: JobResult): void {
  if ("prepared" in result) {
    pending.resolve(result.prepared);
  } else if ("refused" in result) {
    const { httpStatus, type, code, message, param } = result.refused;
    pending.reject(new GatewayError(httpStatus, type, code, message, param));
  } else {
    pending.reject(new Error(result.failed));
  }
}
