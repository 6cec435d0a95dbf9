import type { Channel } from "@gateway/catalogue";
import { mapVendorError } from "@gateway/outbound-http";
import { type GatewayError, serviceUnavailable } from "@gateway/platform";
import { z } from "zod";

// OpenAI's videos API (PROTOCOLS.md A12): create POST /videos, retrieve GET /videos/{id},
// download GET /videos/{id}/content, delete DELETE /videos/{id}, under the channel's base URL
// (which already ends in /v1).

const jobSchema = z.object({
  id: z.string().min(1),
  status: z.enum(["queued", "in_progress", "completed", "failed"]),
  progress: z.number().int().min(0).max(100).nullish(),
  seconds: z.string().nullish(),
  error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

export type VendorJob = z.infer<typeof jobSchema>;

export interface CreateJob {
  model: string;
  prompt: string;
  seconds: number;
  size: string;
}

/** A vendor call failed; `error` is what the task should report, `retryable` whether trying again may help. */
export class VendorCallError extends Error {
  constructor(
    readonly error: GatewayError,
    readonly status: number,
  ) {
    super(error.message);
    this.name = "VendorCallError";
  }

  get retryable(): boolean {
    return this.error.retryable;
  }
}

export class OpenAIVideosClient {
  constructor(private readonly timeoutMs: number) {}

  async create(channel: Channel, job: CreateJob, signal: AbortSignal): Promise<VendorJob> {
    // Sora takes `seconds` as a string (A12).
    const body = { model: job.model, prompt: job.prompt, seconds: String(job.seconds), size: job.size };
    return jobSchema.parse(await this.json(channel, "POST", "/videos", signal, body));
  }

  async retrieve(channel: Channel, id: string, signal: AbortSignal): Promise<VendorJob> {
    return jobSchema.parse(await this.json(channel, "GET", `/videos/${encodeURIComponent(id)}`, signal));
  }

  /** The finished MP4 as a stream of chunks; only the connection phase is bounded by the call timeout. */
  async download(channel: Channel, id: string, signal: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
    const response = await this.send(channel, "GET", `/videos/${encodeURIComponent(id)}/content`, signal);
    if (!response.body) throw new VendorCallError(serviceUnavailable("The video download was empty."), 502);
    return response.body;
  }

  /** Cancels (deletes) a job; one the vendor no longer knows is already gone. */
  async cancel(channel: Channel, id: string, signal: AbortSignal): Promise<void> {
    try {
      await this.json(channel, "DELETE", `/videos/${encodeURIComponent(id)}`, signal);
    } catch (error) {
      if (error instanceof VendorCallError && error.status === 404) return;
      throw error;
    }
  }

  private async json(
    channel: Channel,
    method: string,
    path: string,
    signal: AbortSignal,
    body?: unknown,
  ): Promise<unknown> {
    const response = await this.send(channel, method, path, signal, body);
    return response.json();
  }

  private async send(
    channel: Channel,
    method: string,
    path: string,
    signal: AbortSignal,
    body?: unknown,
  ): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${channel.baseUrl}${path}`, {
        method,
        headers: {
          // Always the channel's first key: a job is only visible to the vendor account that created it.
          authorization: `Bearer ${channel.keys[0]!.secret}`,
          ...(body !== undefined && { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new VendorCallError(serviceUnavailable("The video provider could not be reached."), 0);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      throw new VendorCallError(
        mapVendorError(response.status, text, Object.fromEntries(response.headers)),
        response.status,
      );
    }
    return response;
  }
}
