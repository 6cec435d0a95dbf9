import { setTimeout as sleep } from "node:timers/promises";
import type { sendUnaryData, UntypedHandleCall, UntypedServiceImplementation } from "@grpc/grpc-js";

type AnyHandler = (call: unknown, callback?: sendUnaryData<unknown>) => unknown;

/**
 * The calls a server is still working on. A call cut at the end of a drain is over for the
 * transport at once, but its handler still reports its usage a moment later; the drain waits
 * for that before the usage publisher is closed.
 */
export class CallsInFlight {
  private readonly running = new Set<Promise<unknown>>();

  /**
   * Wraps every handler of a service so each call counts until its handler is done: a unary
   * call when it answers, a streaming call when the promise its handler returns settles.
   */
  track<Service extends UntypedServiceImplementation>(service: Service): Service {
    const wrap =
      (handler: AnyHandler): AnyHandler =>
      (call, callback) => {
        if (!callback) {
          const result = handler(call);
          if (result instanceof Promise) this.count(result);
          return result;
        }
        let answered = () => {};
        this.count(new Promise<void>((resolve) => (answered = resolve)));
        return handler(call, (...answer) => {
          answered();
          callback(...answer);
        });
      };
    return Object.fromEntries(
      Object.entries(service).map(([method, handler]) => [
        method,
        wrap(handler as unknown as AnyHandler) as unknown as UntypedHandleCall,
      ]),
    ) as Service;
  }

  /** Resolves once every counted call is done, or after `timeoutMs` at the latest. */
  async settled(timeoutMs: number): Promise<void> {
    await Promise.race([Promise.allSettled([...this.running]), sleep(timeoutMs)]);
  }

  private count(call: Promise<unknown>): void {
    this.running.add(call);
    void call.finally(() => this.running.delete(call)).catch(() => undefined);
  }
}
