import { repoRoot, type ServiceProcess, startService, type TestStack } from "@gateway/stack";

export interface RouterReplicas {
  // The stack's router, then the second one.
  readonly routers: readonly [ServiceProcess, ServiceProcess];
  /** Starts router `index` again on its ports and usage journal, as a Deployment replaces a lost pod. */
  replace(index: 0 | 1): Promise<ServiceProcess>;
  /** Stops the second router (the stack stops its own router and the edge). */
  stop(): Promise<void>;
}

/**
 * A second router beside the test stack's (its own usage journal and spool, as one pod's
 * volume), and the stack's edge started again on its ports with ROUTER_URL naming both, so
 * edge balances its calls over the two (round-robin) and sends a call one lost to the other.
 */
export async function startRouterReplicas(stack: TestStack): Promise<RouterReplicas> {
  const first = stack.processes.router;
  const start = (env: NodeJS.ProcessEnv, ports?: Record<string, number>) =>
    startService(
      "router",
      first.entry,
      { ...env, ROUTER_PORT: String(ports?.grpc ?? 0), ROUTER_ADMIN_PORT: String(ports?.admin ?? 0) },
      { echo: "problems" },
    );
  let second = await start({ ...first.env, USAGE_SPOOL_DIR: `${repoRoot}.gateway/spool/${stack.namespace}/router-2` });
  const edge = stack.processes.edge;
  await edge.stop();
  stack.processes.edge = await startService(
    "edge",
    edge.entry,
    {
      ...edge.env,
      GATEWAY_PORT: String(edge.ports.http),
      EDGE_ADMIN_PORT: String(edge.ports.admin),
      ROUTER_URL: `ipv4:127.0.0.1:${first.ports.grpc},127.0.0.1:${second.ports.grpc}`,
    },
    { echo: "problems" },
  );
  return {
    get routers() {
      return [stack.processes.router, second] as const;
    },
    async replace(index) {
      const lost = index === 0 ? stack.processes.router : second;
      const replacement = await start(lost.env, lost.ports);
      if (index === 0) stack.processes.router = replacement;
      else second = replacement;
      return replacement;
    },
    async stop() {
      await second.stop();
    },
  };
}
