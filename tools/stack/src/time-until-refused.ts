import { setTimeout as sleep } from "node:timers/promises";

/**
 * Repeats `attempt` until it fails in a way `isRefusal` recognizes (a revoked or disabled key's
 * 401), and answers how long that took; throws if it is still accepted after `limitMs`.
 */
export async function msUntilRefused(
  attempt: () => Promise<unknown>,
  isRefusal: (error: unknown) => boolean,
  limitMs = 10_000,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    const error = await attempt().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    if (error !== undefined && isRefusal(error)) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`still accepted after ${limitMs} ms`);
    await sleep(50);
  }
}
