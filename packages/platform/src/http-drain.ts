import { setMaxListeners } from "node:events";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { ShutdownTimings } from "./graceful-shutdown.js";
import type { Logger } from "./logger.js";

// Each admitted response's cut signal; a WeakMap, so nothing outlives its response.
const cutSignals = new WeakMap<ServerResponse, AbortSignal>();

/**
 * An HTTP server's side of a SIGTERM drain, in three steps: `notReady` (readiness answers 503
 * while requests are still served, so the load balancer stops sending them), `refuseNew` (new
 * requests get `refuse`'s retryable 503 with `connection: close`; those in flight go on), and,
 * at the grace deadline, `cutRemaining` (the signal `shutdownCutOf` gives each request aborts, so
 * open streams can end with an error frame). `drainHttpServer` runs the steps in order.
 */
export class HttpDrain<Res extends ServerResponse = ServerResponse> {
  private phase: "serving" | "not_ready" | "refusing" = "serving";
  private readonly inFlight = new Set<Res>();
  private readonly idleWaiters = new Set<() => void>();
  private readonly cut = new AbortController();

  /** `refuse` answers a request that arrives once the drain refuses new ones, in the service's error shape. */
  constructor(private readonly refuse: (response: Res) => void) {
    // Every open stream listens for the cut.
    setMaxListeners(0, this.cut.signal);
  }

  get ready(): boolean {
    return this.phase === "serving";
  }

  /** Middleware: counts each request until its response closes, or refuses it once draining refuses. */
  readonly admit = (_request: IncomingMessage, response: Res, next: () => void): void => {
    if (this.phase === "refusing") {
      response.setHeader("connection", "close");
      this.refuse(response);
      return;
    }
    this.inFlight.add(response);
    cutSignals.set(response, this.cut.signal);
    response.once("close", () => {
      this.inFlight.delete(response);
      if (this.inFlight.size > 0) return;
      for (const wake of this.idleWaiters) wake();
    });
    next();
  };

  notReady(): void {
    this.phase = "not_ready";
  }

  refuseNew(): void {
    this.phase = "refusing";
    // Answers not yet begun close their connection after them, so the client's next request goes elsewhere.
    for (const response of this.inFlight) if (!response.headersSent) response.setHeader("connection", "close");
  }

  /** Resolves true once no request is in flight, false if some still are after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.idleWaiters.delete(wake);
        resolve(idle);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      this.idleWaiters.add(wake);
    });
  }

  cutRemaining(): void {
    this.cut.abort();
  }
}

/** The signal `HttpDrain` gives each request it admitted, aborted when the drain cuts what is still running. */
export const shutdownCutOf = (response: ServerResponse): AbortSignal | undefined => cutSignals.get(response);

/**
 * Drains an HTTP server on SIGTERM: readiness fails at once, requests are still served for the
 * readiness delay, then new ones are refused while those in flight finish until the grace period
 * (counted from `since`) ends; the rest are cut and given a second to write their last frame.
 */
export async function drainHttpServer<Res extends ServerResponse>(
  server: Server<typeof IncomingMessage, typeof ServerResponse>,
  drain: HttpDrain<Res>,
  timings: ShutdownTimings,
  logger: Logger,
  since = Date.now(),
): Promise<void> {
  drain.notReady();
  await sleep(timings.readinessDelayMs);
  drain.refuseNew();
  // Idle keep-alive connections go now; their clients' next requests connect elsewhere.
  server.closeIdleConnections();
  if (!(await drain.idle(since + timings.graceMs - Date.now()))) {
    logger.warn("grace period over: cutting the requests still in flight");
    drain.cutRemaining();
    // Time to write the error frames.
    await drain.idle(1_000);
  }
  server.close();
  server.closeAllConnections();
}
