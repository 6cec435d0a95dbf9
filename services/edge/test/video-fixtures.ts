import { VideoTestClockServiceClient } from "@gateway/proto/video/v1/video";
import { eventually, queryRows, testClientOptions } from "@gateway/stack";
import { credentials } from "@grpc/grpc-js";

// The SDK has no /v1/videos/generations, so these tests speak HTTP with fetch and the API key.

/**
 * Video service and simulator settings that make tasks finish in a fraction of a second:
 * jobs take 0.1 s per second of video (slower ones are asked for with [sim:video_ms=…]),
 * workers look for work and poll every 100-300 ms.
 */
export const quickVideoEnv = {
  SIMULATOR_VIDEO_SECONDS_PER_SECOND: "0.1",
  VIDEO_WORKER_TICK_MS: "100",
  VIDEO_POLL_INITIAL_MS: "100",
  VIDEO_POLL_MAX_MS: "300",
};

export interface VideoTaskBody {
  id: string;
  status: "pending" | "processing" | "completed" | "failed";
  created_at: number;
  video_url?: string;
  error?: string;
  progress?: number;
  duration?: number;
  model?: string;
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function videoApi(baseUrl: string, apiKey: string) {
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  return {
    async submit(body: unknown, extraHeaders: Record<string, string> = {}) {
      const response = await fetch(`${baseUrl}/videos/generations`, {
        method: "POST",
        headers: { ...headers, ...extraHeaders },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { response, body: (await response.json()) as VideoTaskBody & ErrorBody };
    },
    async get(id: string) {
      const response = await fetch(`${baseUrl}/videos/generations/${id}`, { headers });
      return { response, body: (await response.json()) as VideoTaskBody & ErrorBody };
    },
    /** Polls until the task is finished (completed or failed). */
    finished(id: string, timeoutMs = 20_000) {
      return eventually(
        async () => {
          const { body } = await this.get(id);
          return body.status === "completed" || body.status === "failed" ? body : undefined;
        },
        timeoutMs,
        100,
      );
    },
  };
}

export interface TaskRow {
  id: string;
  request_id: string;
  status: string;
  vendor_job_id: string | null;
  worker_id: string | null;
  attempts: number;
  storage_key: string | null;
  callback_state: string | null;
  callback_attempts: number;
}

export const taskRows = (databaseUrl: string, where = "true", params: unknown[] = []) =>
  queryRows<TaskRow>(databaseUrl, `SELECT * FROM video.tasks WHERE ${where}`, params);

export interface SimulatedVideoJob {
  id: string;
  prompt: string;
  seconds: number;
  size: string;
  status: string;
  deleted: boolean;
}

export async function simulatedVideoJobs(simulatorUrl: string): Promise<SimulatedVideoJob[]> {
  const response = await fetch(`${simulatorUrl}/_sim/videos`);
  return ((await response.json()) as { data: SimulatedVideoJob[] }).data;
}

/** Moves the video service's clock (test mode only). */
export function setVideoClockOffset(grpcPort: number, offsetMs: number): Promise<void> {
  const client = new VideoTestClockServiceClient(
    `127.0.0.1:${grpcPort}`,
    credentials.createInsecure(),
    testClientOptions(),
  );
  return new Promise((resolve, reject) =>
    client.setClockOffset({ offsetMs }, (error) => {
      client.close();
      if (error) reject(error);
      else resolve();
    }),
  );
}
