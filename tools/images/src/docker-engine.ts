import { type SpawnSyncOptions, type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";

/**
 * The engine the image tools talk to. GATEWAY_DOCKER_HOST names a daemon on a socket of its own
 * (scripts/docker-engine.sh starts one on /run/gateway-docker/docker.sock): a daemon on the default
 * socket would make the test suite's testcontainers start its datastores in containers.
 * DOCKER_BUILDKIT=0 keeps the classic builder, which needs no frontend image from a registry.
 */
export function dockerEnvironment(): NodeJS.ProcessEnv {
  const host = process.env.GATEWAY_DOCKER_HOST;
  return { ...process.env, DOCKER_BUILDKIT: "0", ...(host ? { DOCKER_HOST: host } : {}) };
}

export function docker(args: string[], options: SpawnSyncOptions = {}): SpawnSyncReturns<string> {
  return spawnSync("docker", args, {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    ...options,
    env: { ...dockerEnvironment(), ...options.env },
  }) as SpawnSyncReturns<string>;
}

/** Why no engine answers, or undefined when one does. */
export function engineMissing(): string | undefined {
  const info = docker(["info"], { stdio: "ignore" });
  if (info.status === 0) return undefined;
  return info.error ? "no docker client on PATH" : "`docker info` failed";
}

export function imageExists(image: string): boolean {
  return docker(["image", "inspect", image], { stdio: "ignore" }).status === 0;
}

/** Runs docker with its output shown; throws with the command when it fails. */
export function dockerOrThrow(args: string[], options: SpawnSyncOptions = {}): void {
  const run = docker(args, { stdio: "inherit", ...options });
  if (run.status !== 0) throw new Error(`docker ${args.slice(0, 2).join(" ")} failed (exit ${run.status})`);
}

/** Runs docker without blocking (beside other runs), its output kept for the caller to show. */
export function dockerAsync(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("docker", args, { env: dockerEnvironment(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.on("error", (error) => resolve({ status: null, output: `${output}${error.message}` }));
    child.on("close", (status) => resolve({ status, output }));
  });
}
