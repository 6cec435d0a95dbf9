import { setTimeout as sleep } from "node:timers/promises";
import type { Server } from "@grpc/grpc-js";
import { z } from "zod";
import { stopGrpcServer } from "./grpc.js";
import type { GrpcHealth } from "./grpc-health.js";

/** Settings of the SIGTERM drain, shared by every service. */
export const shutdownConfig = {
  // How long a draining process keeps serving after it reports not-ready, so load balancers
  // and endpoint lists notice first; unset: 5 s in production, none in development.
  SHUTDOWN_READINESS_DELAY_MS: z.coerce.number().int().min(0).optional(),
  // From the signal until requests still running are cut; below the pod's terminationGracePeriodSeconds.
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(25_000),
};

export interface ShutdownTimings {
  readinessDelayMs: number;
  graceMs: number;
}

export function shutdownTimings(config: {
  GATEWAY_ENV: "production" | "development";
  SHUTDOWN_READINESS_DELAY_MS?: number | undefined;
  SHUTDOWN_GRACE_MS: number;
}): ShutdownTimings {
  const readinessDelayMs = config.SHUTDOWN_READINESS_DELAY_MS ?? (config.GATEWAY_ENV === "production" ? 5_000 : 0);
  return { readinessDelayMs: Math.min(readinessDelayMs, config.SHUTDOWN_GRACE_MS), graceMs: config.SHUTDOWN_GRACE_MS };
}

/** The handlers a server is still running, as the service counts them. */
export interface RunningHandlers {
  /** Resolves once every handler is done, or after `timeoutMs` at the latest. */
  settled(timeoutMs: number): Promise<void>;
}

/**
 * Drains a gRPC server on SIGTERM: health answers NOT_SERVING at once, calls are still served
 * for the readiness delay, then the server takes no new calls and lets those in flight finish
 * until the grace period (counted from `since`) ends; the rest are cut. Health Watch streams,
 * which never finish, are ended.
 */
export async function drainGrpcServer(
  server: Server,
  health: GrpcHealth,
  timings: ShutdownTimings,
  since = Date.now(),
  handlers?: RunningHandlers,
): Promise<void> {
  health.draining();
  await sleep(timings.readinessDelayMs);
  const remaining = () => Math.max(0, since + timings.graceMs - Date.now());
  const stopped = stopGrpcServer(server, remaining());
  // The server refuses new calls now, so a watcher cannot come back on this server.
  health.endWatches();
  await stopped;
  // grpc-js can report its sessions closed while a stream on one it already sent GOAWAY (at its
  // maximum age) is still being written: the handlers, not the transport, say when calls are done.
  await handlers?.settled(remaining());
}
