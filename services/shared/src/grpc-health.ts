import type { Server } from "@grpc/grpc-js";
import { HealthImplementation, service as healthService } from "grpc-health-check";

/** Method paths of the standard `grpc.health.v1.Health` service (Check and Watch). */
export const healthMethodPaths: ReadonlySet<string> = new Set(
  Object.values(healthService).map((method) => method.path),
);

/** The client constructor's view of the Health service, for probes written in TypeScript (tests, tools). */
export { healthService };

// `/pkg.Service/Method` → `pkg.Service`, the name a probe asks about.
const serviceNameOf = (definition: Record<string, { path: string }>) =>
  Object.values(definition)[0]?.path.split("/")[1] ?? "";

/**
 * The gRPC health checking protocol on `server`: the whole server (service "") and each of
 * `services` answer NOT_SERVING until `serving()` (start-up is over) and again from
 * `draining()` on (SIGTERM), so probes and load balancers stop sending calls before the
 * server stops taking them.
 */
export function serveHealth(server: Server, services: ReadonlyArray<Record<string, { path: string }>>) {
  const names = ["", ...services.map(serviceNameOf)];
  const health = new HealthImplementation(Object.fromEntries(names.map((name) => [name, "NOT_SERVING" as const])));
  health.addToServer(server);
  const setAll = (status: "SERVING" | "NOT_SERVING") => {
    for (const name of names) health.setStatus(name, status);
  };
  return { serving: () => setAll("SERVING"), draining: () => setAll("NOT_SERVING") };
}

export type GrpcHealth = ReturnType<typeof serveHealth>;
