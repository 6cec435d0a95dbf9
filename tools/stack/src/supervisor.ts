import { type Echo, isProblemLine, type ServiceProcess, startService } from "./service-process.js";
import type { RunningStack } from "./stack.js";

type ServiceName = keyof RunningStack["processes"];

// The variables each service reads its ports from: a restarted service takes the ports it had,
// since the other services (and clients) know it there.
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
  return `${service.name} ${how}. Its last ${problems.length > 0 ? "warnings and errors" : "lines"}:\n${lines
    .map((line) => `  ${line}`)
    .join("\n")}`;
}

export interface Supervisor {
  /** Ends supervision: no restart begins any more, and one under way is stopped and waited for. */
  stop(): Promise<void>;
}

/**
 * Keeps every process of a running stack up, as Kubernetes would: a process that fails (a
 * non-zero exit code or a signal) is started again on its ports after a back-off that doubles with each crash in a row (from
 * `firstDelayMs` to `maxDelayMs`), and the console says why it ended and when it is back.
 * `stop` ends supervision; the stack's own stop then stops the current processes. A restart
 * started before `stop` is stopped by it (its process came after any stop signal the stack's
 * processes got), so no process of the supervisor's outlives it.
 */
export function superviseStack(stack: RunningStack, options: SupervisorOptions): Supervisor {
  const firstDelayMs = options.firstDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const stableAfterMs = options.stableAfterMs ?? 60_000;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const restarts = new Set<Promise<void>>();
  const abandon = new AbortController();

  const watch = (name: ServiceName, crashesInARow: number) => {
    const service = stack.processes[name];
    if (!service) return;
    const startedAt = Date.now();
    service.child.once("exit", (code) => {
      if (stopped) return;
      // Only a service told to stop (SIGTERM, SIGINT) drains and exits 0; a crash never does.
      if (code === 0) {
        options.say(`${name} stopped (exit code 0) and is not restarted.`);
        return;
      }
      const inARow = Date.now() - startedAt >= stableAfterMs ? 0 : crashesInARow;
      restartLater(name, inARow, exitReason(service));
    });
  };
  const restartLater = (name: ServiceName, crashesInARow: number, reason: string) => {
    if (stopped) return;
    const delayMs = Math.min(maxDelayMs, firstDelayMs * 2 ** crashesInARow);
    options.say(`${reason}\n${name}: restarting in ${delayMs / 1000} s (restart ${crashesInARow + 1} in a row).`);
    const timer = setTimeout(() => {
      timers.delete(timer);
      const restarting = restart(name, crashesInARow + 1);
      restarts.add(restarting);
      void restarting.finally(() => restarts.delete(restarting));
    }, delayMs);
    timers.add(timer);
  };
  const restart = async (name: ServiceName, crashesInARow: number) => {
    const previous = stack.processes[name];
    if (stopped || !previous) return;
    const ports = Object.fromEntries(
      Object.entries(portVariables[name]).map(([port, variable]) => [variable, String(previous.ports[port])]),
    );
    try {
      const service = await startService(
        name,
        previous.entry,
        { ...previous.env, ...ports },
        { echo: options.echo, signal: abandon.signal },
      );
      if (stopped) {
        await service.stop();
        return;
      }
      stack.processes[name] = service;
      options.say(`${name} is running again.`);
      watch(name, crashesInARow);
    } catch (error) {
      restartLater(name, crashesInARow, error instanceof Error ? error.message : String(error));
    }
  };

  for (const name of Object.keys(stack.processes) as ServiceName[]) watch(name, 0);
  return {
    stop: async () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      abandon.abort();
      await Promise.all(restarts);
    },
  };
}
