import { scrapeMetrics, sumOf } from "./prometheus-text.js";
import type { RunningStack } from "./stack.js";
import { eventually } from "./test-resources.js";

/** How many requests each router replica has sent to a vendor so far, from its own /metrics. */
export function vendorRequestsByRouter(stack: Pick<RunningStack, "replicaMetricsUrls">): Promise<number[]> {
  return Promise.all(
    stack.replicaMetricsUrls.router.map(
      async (url) => sumOf(await scrapeMetrics(url), "gateway_router_requests_total") ?? 0,
    ),
  );
}

/**
 * Repeats `ask` until every router replica has served one: edge balances over the routers it is
 * connected to, and until it has all of them one takes every call.
 */
export async function untilEveryRouterServes(
  stack: Pick<RunningStack, "replicaMetricsUrls">,
  ask: () => Promise<unknown>,
): Promise<void> {
  const before = await vendorRequestsByRouter(stack);
  await eventually(
    async () => {
      await ask();
      const after = await vendorRequestsByRouter(stack);
      return after.every((count, replica) => count > before[replica]!) ? true : undefined;
    },
    30_000,
    50,
  );
}
