import OpenAI from "openai";
import { eventually } from "./test-resources.js";

export interface LoadAccount {
  account_id: string;
  api_key: string;
}

export interface SteadyLoadOptions {
  baseUrl: string;
  accounts: LoadAccount[];
  // New requests per second, started on a fixed schedule whatever the answers take.
  ratePerSecond: number;
  // A tick that finds this many requests unanswered starts none (counted as skipped).
  maxInFlight?: number;
  model?: string;
  // The SDK's own retries (it retries connection errors, 408, 409, 429 and 5xx unless told not to).
  maxRetries?: number;
  // Text added to every message: simulator directives, or a marker to find the requests upstream.
  content?: (index: number) => string;
}

/** One HTTP answer (or its absence) the SDK saw, retries included. */
export interface Attempt {
  at: number;
  status: number | "connection-error";
  shouldRetry: string | null;
  requestId: string | null;
}

export interface LoadReport {
  // Request ids of complete answers (a JSON body, or a stream through its last chunk), per account.
  served: Map<string, string[]>;
  // Streams that broke after their headers: the client got part of an answer.
  interrupted: string[];
  // Requests the SDK gave up on: the last answer it saw (status 0 for anything not HTTP), why,
  // and the request's number (its message begins `load <index> `).
  failed: (Attempt & { message: string; index: number })[];
  attempts: Attempt[];
  skipped: number;
}

// What the SDK treats as worth retrying (and what the gateway must answer while a part is away).
export function isRetryable(attempt: Attempt): boolean {
  if (attempt.status === "connection-error") return true;
  if (attempt.shouldRetry === "false") return false;
  return attempt.status === 408 || attempt.status === 409 || attempt.status === 429 || attempt.status >= 500;
}

/**
 * Keeps the gateway busy through the official SDK at a fixed rate, alternating JSON and
 * streamed chat completions across several accounts, and records every answer it saw.
 */
export class SteadyLoad {
  private readonly report: LoadReport = { served: new Map(), interrupted: [], failed: [], attempts: [], skipped: 0 };
  private readonly inFlight = new Set<Promise<void>>();
  private readonly clients: OpenAI[];
  private readonly timer: NodeJS.Timeout;
  private sent = 0;

  constructor(private readonly options: SteadyLoadOptions) {
    const recordingFetch: typeof fetch = async (input, init) => {
      try {
        const response = await fetch(input, init);
        this.attempt(response.status, response.headers);
        return response;
      } catch (error) {
        this.attempt("connection-error", undefined);
        throw error;
      }
    };
    this.clients = options.accounts.map(
      (account) =>
        new OpenAI({
          baseURL: options.baseUrl,
          apiKey: account.api_key,
          maxRetries: options.maxRetries ?? 10,
          timeout: 60_000,
          fetch: recordingFetch,
        }),
    );
    for (const account of options.accounts) this.report.served.set(account.account_id, []);
    this.timer = setInterval(() => this.tick(), 1_000 / options.ratePerSecond);
  }

  /** Requests answered completely so far, all accounts together. */
  get servedCount(): number {
    return [...this.report.served.values()].reduce((sum, ids) => sum + ids.length, 0);
  }

  /** Waits until `count` more requests than now have been answered completely. */
  async servedMore(count: number, timeoutMs = 90_000): Promise<void> {
    const target = this.servedCount + count;
    await eventually(async () => (this.servedCount >= target ? true : undefined), timeoutMs, 100);
  }

  /** Stops starting requests and waits for the ones under way. */
  async stop(): Promise<LoadReport> {
    clearInterval(this.timer);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    return this.report;
  }

  private attempt(status: Attempt["status"], headers: Headers | undefined): void {
    this.report.attempts.push({
      at: Date.now(),
      status,
      shouldRetry: headers?.get("x-should-retry") ?? null,
      requestId: headers?.get("x-request-id") ?? null,
    });
  }

  private tick(): void {
    if (this.inFlight.size >= (this.options.maxInFlight ?? 16)) {
      this.report.skipped += 1;
      return;
    }
    const index = this.sent++;
    const running = this.send(index).finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
  }

  private async send(index: number): Promise<void> {
    const account = this.options.accounts[index % this.options.accounts.length]!;
    const client = this.clients[index % this.clients.length]!;
    const body = {
      model: this.options.model ?? "gpt-4o-mini",
      messages: [{ role: "user" as const, content: `load ${index} ${this.options.content?.(index) ?? ""}` }],
      max_tokens: 16,
    };
    const served = this.report.served.get(account.account_id)!;
    try {
      if (index % 2 === 0) {
        const { request_id } = await client.chat.completions.create(body).withResponse();
        served.push(request_id!);
        return;
      }
      const { data: stream, request_id } = await client.chat.completions
        .create({ ...body, stream: true, stream_options: { include_usage: true } })
        .withResponse();
      try {
        for await (const _chunk of stream) {
          // Read to the end: only a whole stream counts as served.
        }
        served.push(request_id!);
      } catch {
        this.report.interrupted.push(request_id!);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const status =
        error instanceof OpenAI.APIConnectionError
          ? "connection-error"
          : error instanceof OpenAI.APIError
            ? (error.status ?? 0)
            : 0;
      const headers = error instanceof OpenAI.APIError ? error.headers : undefined;
      this.report.failed.push({
        at: Date.now(),
        status,
        shouldRetry: headers?.get("x-should-retry") ?? null,
        requestId: headers?.get("x-request-id") ?? null,
        message,
        index,
      });
    }
  }
}
