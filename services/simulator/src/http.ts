import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { ImageTaskStore } from "./dashscope/image-synthesis.js";
import type { FaultQueue } from "./faults.js";
import type { GithubOAuthState } from "./github/github-oauth.js";
import type { VideoJobStore } from "./openai/videos/video-jobs.js";
import type { PaymentsState } from "./payments/payments-state.js";
import type { PromptCache } from "./prompt-cache.js";
import type { RefusedKeys } from "./refused-keys.js";
import type { RequestLog, RequestRecord } from "./request-log.js";
import type { ObjectStore } from "./s3/object-store.js";

export interface SimulatorConfig {
  /** Delay between streamed tokens: stands for a vendor's generation speed. */
  tokenLatencyMs: number;
  /** Delay before the first token: stands for a vendor's time to first token. */
  firstTokenLatencyMs: number;
  /** Wall-clock seconds a video job takes per second of video (SIMULATOR_VIDEO_SECONDS_PER_SECOND). */
  videoSecondsPerSecond?: number;
}

export interface SimulatorState {
  config: SimulatorConfig;
  faults: FaultQueue;
  requests: RequestLog;
  videos: VideoJobStore;
  /** DashScope's asynchronous image tasks. */
  imageTasks: ImageTaskStore;
  objects: ObjectStore;
  payments: PaymentsState;
  github: GithubOAuthState;
  /** What each vendor's prompt cache holds. */
  promptCache: PromptCache;
  /** Keys the vendors refuse (invalid, or out of balance). */
  refusedKeys: RefusedKeys;
}

/** One request and its response, with what every handler needs to answer or give up. */
export interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  id: string;
  method: string;
  path: string;
  /** The parsed JSON body; undefined when there was none or it was malformed (bodyText tells which). */
  body: unknown;
  bodyText: string;
  /** The raw body, for multipart uploads (images, audio) that are no text. */
  bodyBytes: Buffer;
  /** Set once the connection closes, so pending work stops at its next step. */
  closed: boolean;
  /** Set when the simulator breaks the connection on purpose, which is no client abort. */
  severed: boolean;
  record: RequestRecord | undefined;
}

export type Handler = (exchange: Exchange, state: SimulatorState) => void | Promise<void>;

// Node's timers overflow above this and would fire at once.
const longestTimerMs = 2_147_483_647;

export function writeHead(exchange: Exchange, status: number, headers: OutgoingHttpHeaders): void {
  exchange.response.writeHead(status, { "x-request-id": exchange.id, ...headers });
  if (exchange.record) exchange.record.status = status;
}

export function sendJson(exchange: Exchange, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (exchange.closed || exchange.response.headersSent) return;
  const text = JSON.stringify(body);
  writeHead(exchange, status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  exchange.response.end(text);
}

/** Resolves true after the delay, or false as soon as the connection closes, so no timer outlives its client. */
export function wait(exchange: Exchange, milliseconds: number): Promise<boolean> {
  if (exchange.closed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        exchange.response.off("close", onClose);
        resolve(true);
      },
      Math.min(milliseconds, longestTimerMs),
    );
    exchange.response.once("close", onClose);
  });
}

/** Breaks the connection mid-response, the way a failing vendor does. */
export function sever(exchange: Exchange): void {
  exchange.severed = true;
  exchange.response.destroy();
}

/** Writes the last bytes, then severs once they reached the socket, so the client surely receives them first. */
export function writeThenSever(exchange: Exchange, data: string): void {
  exchange.severed = true;
  exchange.response.write(data, () => sever(exchange));
}
