import { scrapeMetrics, sumOf } from "./prometheus-text.js";
import type { RunningStack } from "./stack.js";
import { eventually } from "./test-resources.js";
import { startTestStack, type TestStack } from "./test-stack.js";

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

/**
 * A test stack of two routers behind one edge (`env` for every service), answered once each
 * router has served a chat request of a new account in `group`, so edge balances over both.
 */
export async function startTwoRouterStack(env: Record<string, string>, group = "default"): Promise<TestStack> {
  const stack = await startTestStack({ replicas: 2, env });
  const { api_key: apiKey } = await stack.createAccount({ group });
  await untilEveryRouterServes(stack, () =>
    fetch(`${stack.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "warm-up" }] }),
    }).then((response) => response.arrayBuffer()),
  );
  return stack;
}
