import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

/** Ports free now on loopback, all different (each held until all are found). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve) => {
          const server = createServer();
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
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
