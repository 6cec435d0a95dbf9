import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicCountTokens, anthropicMessages } from "./anthropic/messages.js";
import { getTask, ImageTaskStore, submitImageSynthesis } from "./dashscope/image-synthesis.js";
import { clearFaults, FaultQueue, listFaults, queueFault } from "./faults.js";
import { countTokens } from "./gemini/count-tokens.js";
import { embedContent } from "./gemini/embed-content.js";
import { generateContent } from "./gemini/generate-content.js";
import { serveImage } from "./gemini/images.js";
import { predict } from "./gemini/predict.js";
import { approve, currentUser, exchangeCode, GithubOAuthState, showAuthorizePage } from "./github/github-oauth.js";
import { type Exchange, type Handler, type SimulatorConfig, type SimulatorState, sendJson, sever } from "./http.js";
import { chatCompletions } from "./openai/chat-completions.js";
import { embeddings } from "./openai/embeddings.js";
import { sendNotFound, sendOpenAIError } from "./openai/errors.js";
import { imageEdits, imageGenerations, serveGeneratedImage } from "./openai/images.js";
import { listModels } from "./openai/models.js";
import { createResponse } from "./openai/responses/create-response.js";
import { audioTranscriptions } from "./openai/transcriptions.js";
import { VideoJobStore } from "./openai/videos/video-jobs.js";
import {
  clearVideoJobs,
  createVideo,
  deleteVideo,
  downloadVideo,
  listVideoJobs,
  retrieveVideo,
} from "./openai/videos/videos.js";
import { alipayGateway } from "./payments/alipay-gateway.js";
import { listPaymentNotifications, listPaymentOrders, paymentCredentials } from "./payments/control.js";
import { pay, showPayPage } from "./payments/pay-page.js";
import { PaymentsState } from "./payments/payments-state.js";
import { createNativeOrder, wechatPayRoutes } from "./payments/wechat-pay-api.js";
import { PromptCache } from "./prompt-cache.js";
import { clearRefusedKeys, listRefusedKeys, queueRefusedKey, RefusedKeys, refuseKey } from "./refused-keys.js";
import { clearRequests, listRequests, RequestLog, redactHeaders } from "./request-log.js";
import { ObjectStore, type ObjectStoreOptions } from "./s3/object-store.js";
import { clearStoredObjects, listStoredObjects, s3Routes } from "./s3/s3-api.js";

export interface SimulatorOptions extends Partial<SimulatorConfig> {
  host?: string;
  /** 0 picks any free port; `Simulator.port` tells which. */
  port?: number;
  /** How many vendor requests `/_sim/requests` keeps (default 200). */
  requestLogCapacity?: number;
  /** The simulated S3 (`<url>/s3`): its key pair, buckets and size bound. */
  s3?: Partial<ObjectStoreOptions>;
}

export interface Simulator {
  host: string;
  port: number;
  /** Base address, e.g. http://127.0.0.1:8090 (the OpenAI base URL is this plus /v1). */
  url: string;
  state: SimulatorState;
  close(): Promise<void>;
}

const largestBodyBytes = 32 * 1024 * 1024;
// Enough of each body's text for a test to compare it with what a client sent, byte for byte.
const recordedTextCharacters = 1024 * 1024;
const controlPrefix = "/_sim/";
// The vendors' model APIs (OpenAI-compatible, Anthropic, Gemini, DashScope's own), as opposed to payments, GitHub and S3.
const vendorApi = /^\/(api\/)?v1(beta)?\//;

const routes = new Map<string, Handler>([
  ["POST /v1/chat/completions", chatCompletions],
  ["POST /v1/responses", createResponse],
  ["POST /v1/embeddings", embeddings],
  ["POST /v1/messages", anthropicMessages],
  ["POST /v1/messages/count_tokens", anthropicCountTokens],
  ["POST /v1/images/generations", imageGenerations],
  ["POST /v1/images/edits", imageEdits],
  ["POST /v1/audio/transcriptions", audioTranscriptions],
  ["GET /v1/models", listModels],
  ["POST /v1/videos", createVideo],
  ["POST /api/v1/services/aigc/text2image/image-synthesis", submitImageSynthesis],
  ["GET /_sim/videos", listVideoJobs],
  ["DELETE /_sim/videos", clearVideoJobs],
  ["GET /_sim/s3", listStoredObjects],
  ["DELETE /_sim/s3", clearStoredObjects],
  ["POST /v3/pay/transactions/native", createNativeOrder],
  ["GET /gateway.do", alipayGateway],
  ["POST /gateway.do", alipayGateway],
  ["GET /_sim/payments/credentials", paymentCredentials],
  ["GET /_sim/payments/orders", listPaymentOrders],
  ["GET /_sim/payments/notifications", listPaymentNotifications],
  ["GET /login/oauth/authorize", showAuthorizePage],
  ["POST /login/oauth/authorize", approve],
  ["POST /login/oauth/access_token", exchangeCode],
  ["GET /github/api/user", currentUser],
  ["GET /_sim/health", (exchange) => sendJson(exchange, 200, { ok: true })],
  ["POST /_sim/faults", queueFault],
  ["GET /_sim/faults", listFaults],
  ["DELETE /_sim/faults", clearFaults],
  ["POST /_sim/keys/refused", queueRefusedKey],
  ["GET /_sim/keys/refused", listRefusedKeys],
  ["DELETE /_sim/keys/refused", clearRefusedKeys],
  ["GET /_sim/requests", listRequests],
  ["DELETE /_sim/requests", clearRequests],
]);

// Paths with a variable part (Gemini's model, an image's name), tried when no exact route matches.
const patternRoutes: [method: string, path: RegExp, handler: Handler][] = [
  ["POST", /^\/v1beta\/models\/[^/:]+:(?:generateContent|streamGenerateContent)$/, generateContent],
  ["POST", /^\/v1beta\/models\/[^/:]+:(?:embedContent|batchEmbedContents)$/, embedContent],
  ["POST", /^\/v1beta\/models\/[^/:]+:countTokens$/, countTokens],
  ["POST", /^\/v1beta\/models\/[^/:]+:predict$/, predict],
  ["GET", /^\/_sim\/images\/[a-z]+\.png$/, serveImage],
  ["GET", /^\/api\/v1\/tasks\/[^/]+$/, getTask],
  ["GET", /^\/v1\/videos\/video_[0-9a-f]+$/, retrieveVideo],
  ["GET", /^\/v1\/videos\/video_[0-9a-f]+\/content$/, downloadVideo],
  ["DELETE", /^\/v1\/videos\/video_[0-9a-f]+$/, deleteVideo],
  ["GET", /^\/_sim\/generated\/[0-9a-f]{6}-\d+x\d+\.png$/, serveGeneratedImage],
  ["GET", /^\/pay\/[0-9a-f]{32}$/, showPayPage],
  ["POST", /^\/pay\/[0-9a-f]{32}$/, pay],
  ...wechatPayRoutes,
  ...s3Routes,
];

function routeOf({ method, path }: Exchange): Handler {
  const exact = routes.get(`${method} ${path}`);
  if (exact) return exact;
  return (
    patternRoutes.find(([routeMethod, pattern]) => routeMethod === method && pattern.test(path))?.[2] ?? sendNotFound
  );
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const state: SimulatorState = {
    config: {
      tokenLatencyMs: options.tokenLatencyMs ?? 0,
      firstTokenLatencyMs: options.firstTokenLatencyMs ?? 0,
      videoSecondsPerSecond: options.videoSecondsPerSecond,
    },
    faults: new FaultQueue(),
    requests: new RequestLog(options.requestLogCapacity),
    videos: new VideoJobStore(),
    imageTasks: new ImageTaskStore(),
    objects: new ObjectStore(options.s3),
    payments: new PaymentsState(),
    github: new GithubOAuthState(),
    promptCache: new PromptCache(),
    refusedKeys: new RefusedKeys(),
  };
  // noDelay: every SSE frame leaves at once instead of waiting for Nagle's algorithm.
  const server = createServer({ noDelay: true, keepAlive: true }, (request, response) => {
    void handle(request, response, state);
  });
  // Longer than clients' idle timeouts, so a client never reuses a connection the simulator is closing.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const host = options.host ?? "127.0.0.1";
  await listen(server, options.port ?? 8090, host);
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    host,
    port,
    url: `http://${urlHost}:${port}`,
    state,
    close: () => {
      state.payments.stop();
      return close(server);
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Stops listening and drops open connections, hanging requests included. */
function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function handle(request: IncomingMessage, response: ServerResponse, state: SimulatorState): Promise<void> {
  const exchange = openExchange(request, response, state);
  try {
    await readBody(exchange);
    // A refused key is turned away before any endpoint runs, as the vendors' front doors do.
    if (vendorApi.test(exchange.path) && refuseKey(exchange, state)) return;
    const handler = routeOf(exchange);
    await handler(exchange, state);
  } catch (error) {
    fail(exchange, error);
  }
}

function openExchange(request: IncomingMessage, response: ServerResponse, state: SimulatorState): Exchange {
  const url = request.url ?? "/";
  const query = url.indexOf("?");
  const exchange: Exchange = {
    request,
    response,
    id: `req_${randomUUID().replaceAll("-", "")}`,
    method: request.method ?? "GET",
    path: query < 0 ? url : url.slice(0, query),
    body: undefined,
    bodyText: "",
    bodyBytes: Buffer.alloc(0),
    closed: false,
    severed: false,
    record: undefined,
  };
  // The control API stays out of the log, which is meant to show vendor traffic only.
  if (!exchange.path.startsWith(controlPrefix)) {
    exchange.record = {
      id: exchange.id,
      at: new Date().toISOString(),
      method: exchange.method,
      path: exchange.path,
      headers: redactHeaders(request.headers),
      body: null,
      bodyText: "",
      aborted: false,
      status: null,
    };
    state.requests.add(exchange.record);
  }
  response.on("close", () => onClose(exchange));
  // A write racing a disconnect may report an error; the close handler already covers it.
  response.on("error", () => {});
  return exchange;
}

function onClose(exchange: Exchange): void {
  exchange.closed = true;
  if (exchange.record && !exchange.response.writableFinished && !exchange.severed) exchange.record.aborted = true;
}

class BodyTooLarge extends Error {}

async function readBody(exchange: Exchange): Promise<void> {
  const headers = exchange.request.headers;
  if (headers["content-length"] === undefined && headers["transfer-encoding"] === undefined) return;
  exchange.bodyBytes = await collect(exchange.request);
  exchange.bodyText = exchange.bodyBytes.toString("utf8");
  if (exchange.bodyText === "") return;
  try {
    exchange.body = JSON.parse(exchange.bodyText);
  } catch {
    // Left undefined: each handler words the complaint in its own protocol.
  }
  if (exchange.record) {
    exchange.record.body = exchange.body ?? exchange.bodyText.slice(0, 65_536);
    exchange.record.bodyText = exchange.bodyText.slice(0, recordedTextCharacters);
  }
}

function collect(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > largestBodyBytes) reject(new BodyTooLarge());
      else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function fail(exchange: Exchange, error: unknown): void {
  if (error instanceof BodyTooLarge) {
    exchange.response.setHeader("connection", "close");
    sendOpenAIError(exchange, 413, "Request body too large.");
    return;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const line = { msg: "handler failed", service: "simulator", path: exchange.path, error: detail };
  process.stderr.write(`${JSON.stringify(line)}\n`);
  if (exchange.response.headersSent) sever(exchange);
  else sendOpenAIError(exchange, 500, "The simulator failed to handle the request.");
}
