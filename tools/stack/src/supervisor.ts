import { type Echo, isProblemLine, replicaName, type ServiceProcess, startService } from "./service-process.js";
import type { RunningStack, StackReplicas } from "./stack.js";

type ServiceName = keyof StackReplicas;

// The variables each service reads its ports from: a replacement takes the ports its predecessor
// had, since the other services (and clients) know it there.
const portVariables: Record<ServiceName, Record<string, string>> = {
  simulator: { http: "SIMULATOR_PORT" },
  ledger: { grpc: "LEDGER_GRPC_PORT", admin: "LEDGER_ADMIN_PORT" },
  router: { grpc: "ROUTER_PORT", admin: "ROUTER_ADMIN_PORT" },
  video: { grpc: "VIDEO_GRPC_PORT", admin: "VIDEO_ADMIN_PORT" },
  edge: { http: "GATEWAY_PORT", admin: "EDGE_ADMIN_PORT" },
  console: { http: "CONSOLE_PORT", admin: "CONSOLE_ADMIN_PORT" },
  oidcProvider: { http: "DEV_OIDC_PORT" },
};

export interface SupervisorOptions {
  echo: Echo;
  // Printed to the console.
  say(line: string): void;
  // Told of each replacement once it is ready (`pnpm start` writes its state file again).
  replaced?(service: ServiceProcess): void;
  firstDelayMs?: number;
  maxDelayMs?: number;
  // A process that ran this long before it exited starts again after the first delay.
  stableAfterMs?: number;
}

/** Why a process ended, with its last warnings and errors (or its last lines, if none). */
function exitReason(service: ServiceProcess): string {
  const { exitCode, signalCode } = service.child;
  const how = signalCode ? `was killed by ${signalCode}` : `exited with code ${exitCode}`;
  const problems = service.output.filter(isProblemLine).slice(-10);
  const lines = problems.length > 0 ? problems : service.output.slice(-5);
  return `${replicaName(service.name, service.replica)} ${how}. Its last ${problems.length > 0 ? "warnings and errors" : "lines"}:\n${lines
    .map((line) => `  ${line}`)
    .join("\n")}`;
}

export interface Supervisor {
  /** Ends supervision: no replacement begins any more, and one under way is stopped and waited for. */
  stop(): Promise<void>;
}

/**
 * Keeps every replica of a running stack up, as a Kubernetes Deployment keeps its replica count:
 * a process that exits for any reason is replaced by a fresh one on its ports, at the same
 * index of `stack.replicas`. One that drained and exited 0 (told to stop) is replaced at once; a
 * crash (a non-zero exit code or a signal) after a back-off that doubles with each crash in a row
 * (from `firstDelayMs` to `maxDelayMs`), and the console says why it ended and when it is back.
 * `stop` ends supervision; the stack's own stop then stops the current processes. A replacement
 * started before `stop` is stopped by it (its process came after any stop signal the stack's
 * processes got), so no process of the supervisor's outlives it.
 */
export function superviseStack(stack: Pick<RunningStack, "replicas">, options: SupervisorOptions): Supervisor {
  const firstDelayMs = options.firstDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const stableAfterMs = options.stableAfterMs ?? 60_000;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const restarts = new Set<Promise<void>>();
  const abandon = new AbortController();

  const watch = (name: ServiceName, replica: number, crashesInARow: number) => {
    const service = stack.replicas[name]?.[replica];
    if (!service) return;
    const startedAt = Date.now();
    service.child.once("exit", (code) => {
      if (stopped) return;
      // Only a process told to stop (SIGTERM, SIGINT) drains and exits 0; a crash never does.
      if (code === 0) {
        options.say(`${replicaName(name, replica)} stopped (exit code 0); starting its replacement.`);
        replace(name, replica, 0);
        return;
      }
      const inARow = Date.now() - startedAt >= stableAfterMs ? 0 : crashesInARow;
      replaceLater(name, replica, inARow, exitReason(service));
    });
  };
  const replaceLater = (name: ServiceName, replica: number, crashesInARow: number, reason: string) => {
    if (stopped) return;
    const delayMs = Math.min(maxDelayMs, firstDelayMs * 2 ** crashesInARow);
    options.say(
      `${reason}\n${replicaName(name, replica)}: restarting in ${delayMs / 1000} s (restart ${crashesInARow + 1} in a row).`,
    );
    const timer = setTimeout(() => {
      timers.delete(timer);
      replace(name, replica, crashesInARow + 1);
    }, delayMs);
    timers.add(timer);
  };
  const replace = (name: ServiceName, replica: number, crashesInARow: number) => {
    const replacing = start(name, replica, crashesInARow);
    restarts.add(replacing);
    void replacing.finally(() => restarts.delete(replacing));
  };
  const start = async (name: ServiceName, replica: number, crashesInARow: number) => {
    const replicas = stack.replicas[name];
    const previous = replicas?.[replica];
    if (stopped || !replicas || !previous) return;
    const ports = Object.fromEntries(
      Object.entries(portVariables[name]).map(([port, variable]) => [variable, String(previous.ports[port])]),
    );
    try {
      const service = await startService(
        name,
        previous.entry,
        { ...previous.env, ...ports },
        { echo: options.echo, signal: abandon.signal, replica },
      );
      if (stopped) {
        await service.stop();
        return;
      }
      replicas[replica] = service;
      options.say(`${replicaName(name, replica)} is running again.`);
      options.replaced?.(service);
      watch(name, replica, crashesInARow);
    } catch (error) {
      replaceLater(name, replica, crashesInARow, error instanceof Error ? error.message : String(error));
    }
  };

  for (const [name, replicas] of Object.entries(stack.replicas) as [ServiceName, ServiceProcess[]][]) {
    for (const replica of replicas.keys()) watch(name, replica, 0);
  }
  return {
    stop: async () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      abandon.abort();
      await Promise.all(restarts);
    },
  };
}
