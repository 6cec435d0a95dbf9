import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface ReadyLine {
  ports: Record<string, number>;
}

export interface ServiceProcess {
  name: string;
  ports: Record<string, number>;
  child: ChildProcess;
  /** Everything the process wrote, for diagnosing a failed start or test. */
  output: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts one service (a node entry point) and resolves once it logs its JSON ready line
 * `{"msg":"ready","ports":{...}}`: every service binds port 0 when asked, so callers learn
 * the real ports from that line instead of guessing free ones.
 */
export function startService(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  options: { timeoutMs?: number; echo?: boolean } = {},
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, ...env },
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
    const timer = setTimeout(() => {
      void stop("SIGKILL");
      reject(new Error(`${name} did not become ready in time:\n${output.slice(-30).join("\n")}`));
    }, options.timeoutMs ?? 30_000);
    const onLine = (line: string) => {
      output.push(line);
      if (options.echo) process.stdout.write(`[${name}] ${line}\n`);
      if (!line.includes('"ready"')) return;
      try {
        const parsed = JSON.parse(line) as { msg?: string } & Partial<ReadyLine>;
        if (parsed.msg !== "ready" || !parsed.ports) return;
        clearTimeout(timer);
        resolve({ name, ports: parsed.ports, child, output, stop });
      } catch {
        // Not JSON: an ordinary line that happens to contain the word.
      }
    };
    createInterface({ input: child.stdout! }).on("line", onLine);
    createInterface({ input: child.stderr! }).on("line", onLine);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${output.slice(-30).join("\n")}`));
    });
  });
}
