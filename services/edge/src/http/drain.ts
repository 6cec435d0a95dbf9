import { setMaxListeners } from "node:events";
import { serviceUnavailable } from "@gateway/platform";
import type { NextFunction, Request, Response } from "express";
import { sendError } from "./send-error.js";

/**
 * Edge's side of a SIGTERM drain, in three steps: `notReady` (readiness answers 503 while
 * requests are still served, so the load balancer stops sending them), `refuseNew` (new
 * requests get a retryable 503 with `connection: close`; those in flight go on), and, at the
 * grace deadline, `cutRemaining` (streams still open end with an error frame).
 */
export class Drain {
  private phase: "serving" | "not_ready" | "refusing" = "serving";
  private readonly inFlight = new Set<Response>();
  private readonly idleWaiters = new Set<() => void>();
  private readonly cut = new AbortController();

  constructor() {
    // Every open stream listens for the cut.
    setMaxListeners(0, this.cut.signal);
  }

  get ready(): boolean {
    return this.phase === "serving";
  }

  /** Middleware: counts each request until its response closes, or refuses it once draining refuses. */
  readonly admit = (_request: Request, response: Response, next: NextFunction): void => {
    if (this.phase === "refusing") {
      response.setHeader("connection", "close");
      sendError(response, serviceUnavailable("This gateway instance is shutting down. Please retry."));
      return;
    }
    this.inFlight.add(response);
    response.locals.shutdownCut = this.cut.signal;
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

/** The signal `Drain` gives each request, aborted when the drain cuts what is still running. */
export const shutdownCutOf = (response: Response): AbortSignal | undefined =>
  response.locals.shutdownCut as AbortSignal | undefined;
