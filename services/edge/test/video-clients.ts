import { setTimeout as sleep } from "node:timers/promises";
import { eventually } from "@gateway/stack";
import { type TaskRow, taskRows, type videoApi } from "./video-fixtures.js";

export interface VideoAnswer {
  at: number;
  status: number;
  what: string;
}

/**
 * Clients of the video API through a fault: they submit tasks and keep asking about every
 * task submitted so far, and every answer is recorded (a failure with its message).
 */
export class VideoClients {
  readonly answers: VideoAnswer[] = [];
  // Ids of the tasks whose submit was answered with a task.
  readonly submitted: string[] = [];
  private readonly loops: Promise<void>[] = [];
  private running = true;

  constructor(private readonly api: ReturnType<typeof videoApi>) {}

  async submit(prompt: string): Promise<void> {
    const { response, body } = await this.api.submit({ model: "sora-2", prompt, async: true });
    this.answered(`submit ${prompt}`, response, body);
    if (response.ok) this.submitted.push(body.id);
  }

  /** Asks about every task submitted so far, over and over, until `stop`. */
  startPolling(pauseMs = 100): void {
    this.loop(async () => {
      for (const id of [...this.submitted]) {
        const { response, body } = await this.api.get(id);
        this.answered(`get ${id}`, response, body);
      }
      await sleep(pauseMs);
    });
  }

  /** Submits `prompt(n)` every `everyMs` until `stop`. */
  startSubmitting(everyMs: number, prompt: (index: number) => string): void {
    let index = 0;
    this.loop(async () => {
      await this.submit(prompt(index++));
      await sleep(everyMs);
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  get failed(): VideoAnswer[] {
    return this.answers.filter((answer) => answer.status !== 200);
  }

  /** The rows of every task submitted, once all of them have completed. */
  completed(databaseUrl: string, timeoutMs = 60_000): Promise<TaskRow[]> {
    return eventually(
      async () => {
        const rows = await taskRows(databaseUrl, "id = ANY($1)", [this.submitted]);
        return rows.every((row) => row.status === "completed") ? rows : undefined;
      },
      timeoutMs,
      200,
    );
  }

  private loop(step: () => Promise<void>): void {
    this.loops.push(
      (async () => {
        while (this.running) await step();
      })(),
    );
  }

  private answered(what: string, response: Response, body: { error?: { message: string } }): void {
    this.answers.push({ at: Date.now(), status: response.status, what: `${what}: ${body.error?.message ?? "ok"}` });
  }
}
