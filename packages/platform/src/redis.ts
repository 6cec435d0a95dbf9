import { createHash } from "node:crypto";
import { createClient, type RedisClientType } from "redis";
import type { Logger } from "./logger.js";

export type Redis = RedisClientType;

// A slow or absent Redis must fail a command quickly (each caller has its fallback or a clear error), not hang it.
const DEFAULT_COMMAND_TIMEOUT_MS = 300;

/**
 * Creates a Redis client and connects in the background, so a service starts while Redis
 * is down. Commands fail at once while disconnected
 * instead of queueing, and the client keeps reconnecting.
 */
export function createRedis(
  url: string,
  logger: Logger,
  whileDown: string,
  commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
): Redis {
  const client = createClient({
    url,
    RESP: 2,
    disableOfflineQueue: true,
    commandOptions: { timeout: commandTimeoutMs },
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) },
  });
  // One warning per outage rather than one per reconnect attempt.
  let healthy = true;
  client.on("error", (error: Error) => {
    if (healthy) logger.warn({ err: error }, `redis unavailable; ${whileDown}`);
    healthy = false;
  });
  client.on("ready", () => {
    if (!healthy) logger.info("redis reconnected");
    healthy = true;
  });
  client.connect().catch((error: unknown) => logger.warn({ err: error }, "redis connect failed"));
  return client;
}

/**
 * A Lua script sent by its SHA-1 (`EVALSHA`): Redis keeps every script it has run, so only the
 * first call after a Redis restart (NOSCRIPT) sends the text, not every request on the hot path.
 */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  async run(redis: Redis, options: { keys: string[]; arguments: string[] }): Promise<unknown> {
    try {
      return await redis.evalSha(this.sha, options);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
      return redis.eval(this.source, options);
    }
  }
}
