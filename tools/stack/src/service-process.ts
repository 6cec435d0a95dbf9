import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { nodeFlagsFor } from "./node-flags.js";
import { serviceNode } from "./service-node.js";

export interface ReadyLine {
  ports: Record<string, number>;
}

export interface ServiceProcess {
  name: string;
  // Which of the service's replicas it is (0 for a service that runs once).
  replica: number;
  // How it was started, so a supervisor can start it again.
  entry: string;
  env: NodeJS.ProcessEnv;
  ports: Record<string, number>;
  child: ChildProcess;
  /** The last lines the process wrote, for diagnosing a failed start, a crash or a test. */
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** How logs, the supervisor and spool directories name a replica: replica 0 by its service's name alone. */
export function replicaName(service: string, replica: number): string {
  return replica === 0 ? service : `${service}-${replica}`;
}

/** Which lines of a service reach the console: all, only warnings and errors, or none. */
export type Echo = boolean | "problems";

const keptLines = 1_000;

// Pino's warn level; the simulator writes the same numbers.
const warnLevel = 40;

/**
 * A warning, an error or anything not a JSON log line (Node's own report of a crash). Every
 * service logs pino's JSON lines, so a line that does not parse is not routine.
 */
export function isProblemLine(line: string): boolean {
  try {
    const { level } = JSON.parse(line) as { level?: unknown };
    return typeof level !== "number" || level >= warnLevel;
  } catch {
    return true;
  }
}

/**
 * Starts one service (a node entry point) and resolves once it logs its JSON ready line
 * `{"msg":"ready","ports":{...}}`: every service binds port 0 when asked, so callers learn
 * the real ports from that line instead of guessing free ones. A start that fails, times out
 * or is aborted (`signal`) rejects only once the process has exited, so no caller leaves one behind.
 */
export function startService(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  options: { timeoutMs?: number; echo?: Echo; signal?: AbortSignal; replica?: number } = {},
): Promise<ServiceProcess> {
  if (options.signal?.aborted) return Promise.reject(new Error(`${name} was not started: the start was abandoned`));
  const childEnv = { ...process.env, ...env };
  const child = spawn(serviceNode, [...nodeFlagsFor(name, childEnv.NODE_OPTIONS), entry], {
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const stop = (signal: NodeJS.Signals = "SIGTERM") =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", (code) => {
        clearTimeout(killer);
        resolve(code);
      });
      child.kill(signal);
    });
  return new Promise((resolve, reject) => {
    // Why the start failed, when it was not the process's own doing; reported once it has exited.
    let failure: Error | undefined;
    const abandon = (error: Error, signal: NodeJS.Signals) => {
      failure ??= error;
      void stop(signal);
    };
    const timer = setTimeout(
      () => abandon(new Error(`${name} did not become ready in time:\n${output.slice(-30).join("\n")}`), "SIGKILL"),
      options.timeoutMs ?? 30_000,
    );
    const onAbort = () =>
      abandon(new Error(`${name} was stopped before it was ready: the start was abandoned`), "SIGTERM");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const onLine = (line: string) => {
      output.push(line);
      if (output.length > keptLines) output.splice(0, output.length - keptLines);
      if (options.echo === true || (options.echo === "problems" && isProblemLine(line))) {
        process.stdout.write(`[${replicaName(name, options.replica ?? 0)}] ${line}\n`);
      }
      if (failure || !line.includes('"ready"')) return;
      try {
        const parsed = JSON.parse(line) as { msg?: string } & Partial<ReadyLine>;
        if (parsed.msg !== "ready" || !parsed.ports) return;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        resolve({ name, replica: options.replica ?? 0, entry, env, ports: parsed.ports, child, output, stop });
      } catch {
        // Not JSON: an ordinary line that happens to contain the word.
      }
    };
    createInterface({ input: child.stdout! }).on("line", onLine);
    createInterface({ input: child.stderr! }).on("line", onLine);
    child.once("exit", (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(failure ?? new Error(`${name} exited with ${code} before it was ready:\n${output.slice(-30).join("\n")}`));
    });
  });
}
