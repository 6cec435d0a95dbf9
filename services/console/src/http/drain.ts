import type { RequestHandler } from "express";

/**
 * The console's part in a graceful stop: readiness turns false first, then new requests are
 * refused with 503 while those in flight finish.
 */
export class Drain {
  private ready = true;
  private refusing = false;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  notReady(): void {
    this.ready = false;
  }

  refuseNew(): void {
    this.refusing = true;
  }

  get isReady(): boolean {
    return this.ready;
  }

  readonly track: RequestHandler = (_request, response, next) => {
    if (this.refusing) {
      response.setHeader("connection", "close");
      response.status(503).json({ error: { code: "shutting_down", message: "The console is restarting; retry." } });
      return;
    }
    this.inFlight += 1;
    response.once("close", () => {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
    next();
  };

  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
