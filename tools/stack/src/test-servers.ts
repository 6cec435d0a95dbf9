import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from "testcontainers";

// Pinned by exact tag: the versions the development machines run (Postgres 15, Redis 7, NATS 2.10).
export const serverImages = {
  postgres: "postgres:15.10-alpine",
  redis: "redis:7.4.1-alpine",
  nats: "nats:2.10.22-alpine",
} as const;

export const serverUrlVariables = ["TEST_POSTGRES_URL", "TEST_REDIS_URL", "TEST_NATS_URL"] as const;

export type ServerSource = { kind: "containers" } | { kind: "local"; reason: string };

/**
 * Where the test run's shared Postgres, Redis and NATS come from: servers given by URL win,
 * `GATEWAY_TEST_CONTAINERS=0` keeps the local ones, and otherwise a reachable Docker engine
 * runs them as containers; without one the machine's local servers serve, as before.
 */
export function chooseServerSource(env: NodeJS.ProcessEnv, dockerReachable: boolean): ServerSource {
  const given = serverUrlVariables.filter((name) => env[name]);
  if (given.length > 0) return { kind: "local", reason: `given by ${given.join(", ")}` };
  if (env.GATEWAY_TEST_CONTAINERS === "0") return { kind: "local", reason: "GATEWAY_TEST_CONTAINERS=0" };
  if (dockerReachable) return { kind: "containers" };
  return { kind: "local", reason: "no Docker engine is reachable" };
}

/** Whether testcontainers finds a container runtime (DOCKER_HOST, its config file, or the usual sockets). */
export async function dockerReachable(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export interface ContainerServers {
  urls: Record<(typeof serverUrlVariables)[number], string>;
  stop(): Promise<void>;
}

/** Starts Postgres, Redis and NATS JetStream in containers, ready for the tests' URLs. */
export async function startContainerServers(): Promise<ContainerServers> {
  const started = await Promise.all([
    new GenericContainer(serverImages.postgres)
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
      .withExposedPorts(5432)
      // The entrypoint's initialisation restarts the server once: the second "ready" is the real one.
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
    new GenericContainer(serverImages.redis)
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .start(),
    new GenericContainer(serverImages.nats)
      .withCommand(["-js"])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
  ]);
  const [postgres, redis, nats] = started as [StartedTestContainer, StartedTestContainer, StartedTestContainer];
  const address = (container: StartedTestContainer, port: number) =>
    `${container.getHost()}:${container.getMappedPort(port)}`;
  return {
    urls: {
      TEST_POSTGRES_URL: `postgresql://postgres@${address(postgres, 5432)}/postgres`,
      TEST_REDIS_URL: `redis://${address(redis, 6379)}`,
      TEST_NATS_URL: `nats://${address(nats, 4222)}`,
    },
    stop: async () => {
      await Promise.all(started.map((container) => container.stop()));
    },
  };
}
