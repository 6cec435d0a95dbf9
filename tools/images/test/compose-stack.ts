import { spawnSync } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { docker, dockerEnvironment } from "../src/docker-engine.js";
import { repoRoot } from "../src/service-images.js";

/** `docker-compose` (Debian's 1.29) where installed, else the `docker compose` plugin. */
function composeCommand(): string[] {
  return spawnSync("docker-compose", ["version"], { stdio: "ignore" }).status === 0
    ? ["docker-compose"]
    : ["docker", "compose"];
}

/** The lowest port the kernel hands out for port 0 and outgoing connections (net.ipv4.ip_local_port_range). */
function ephemeralPortsStart(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    // Every address: edge and the console listen on 0.0.0.0, the others on 127.0.0.1.
    server.listen(port, "0.0.0.0", () => server.close(() => resolve(true)));
  });
}

/**
 * `count` different ports free now, below the kernel's ephemeral range. The containers bind them a
 * minute or more later: a port the kernel had just handed out (to another suite's port-0 server or
 * to any outgoing connection) could be taken by then, while nothing takes a port below the range
 * unasked.
 */
export async function freePorts(count: number): Promise<number[]> {
  const [low, high] = [10_000, ephemeralPortsStart() - 1];
  const ports = new Set<number>();
  for (let tries = 0; ports.size < count; tries++) {
    if (tries > count * 50) throw new Error(`no ${count} free ports between ${low} and ${high}`);
    const port = low + randomInt(high - low + 1);
    if (!ports.has(port) && (await bindable(port))) ports.add(port);
  }
  return [...ports];
}

export interface ComposeRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * compose.yaml run as a project of its own (its volumes and containers named for it), with
 * `variables` as its .env would give them and `override` (Compose's own format) over the file.
 */
export class ComposeProject {
  readonly name = `gwsmoke${randomBytes(4).toString("hex")}`;
  private readonly directory = mkdtempSync(join(tmpdir(), "gateway-compose-"));
  private readonly overridePath = join(this.directory, "override.yaml");

  constructor(
    readonly variables: Record<string, string>,
    override: Record<string, { environment: Record<string, string> }>,
  ) {
    this.setOverride(override);
  }

  setOverride(services: Record<string, { environment: Record<string, string> }>): void {
    writeFileSync(this.overridePath, JSON.stringify({ services }));
  }

  run(args: string[], timeoutMs = 300_000): ComposeRun {
    const [command = "docker", ...prefix] = composeCommand();
    const result = spawnSync(
      command,
      [
        ...prefix,
        "--project-name",
        this.name,
        "--file",
        `${repoRoot}compose.yaml`,
        "--file",
        this.overridePath,
        ...args,
      ],
      {
        cwd: repoRoot,
        encoding: "utf8",
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...dockerEnvironment(), COMPOSE_PROFILES: "simulator", ...this.variables },
      },
    );
    return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
  }

  runOrThrow(args: string[], timeoutMs?: number): string {
    const result = this.run(args, timeoutMs);
    if (result.status !== 0) throw new Error(`compose ${args.join(" ")} failed (${result.status}): ${result.stderr}`);
    return result.stdout;
  }

  private readonly containers = new Map<string, string>();

  /** The service's container (asked once: compose starts slowly, and the tests never recreate one). */
  containerOf(service: string): string {
    const known = this.containers.get(service);
    if (known) return known;
    const id = this.runOrThrow(["ps", "-q", service]).trim();
    if (!id) throw new Error(`no container for ${service}`);
    this.containers.set(service, id);
    return id;
  }

  /** Waits until every service's container reports its health check healthy. */
  async healthy(services: string[], timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const service of services) {
      const container = this.containerOf(service);
      for (;;) {
        const state = docker([
          "inspect",
          "--format",
          "{{.State.Status}} {{.State.Health.Status}}",
          container,
        ]).stdout.trim();
        if (state === "running healthy") break;
        if (state.startsWith("exited") || Date.now() > deadline) {
          const logs = docker(["logs", "--tail", "40", container]);
          throw new Error(`${service} is ${state}: ${logs.stdout}${logs.stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  down(): void {
    this.run(["down", "--volumes", "--timeout", "5"], 180_000);
    rmSync(this.directory, { recursive: true, force: true });
  }
}
