import type { Server, ServerWritableStream, UntypedServiceImplementation } from "@grpc/grpc-js";
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

type WatchCall = ServerWritableStream<unknown, unknown>;

/**
 * `server` as the health implementation sees it, with each Watch stream it opens kept in
 * `watches`: the library never ends them itself, and an open one would hold a draining
 * server's shutdown until the grace period cuts it.
 */
function keepingWatches(server: Server, watches: Set<WatchCall>): Server {
  const addService: Server["addService"] = (service, implementation: UntypedServiceImplementation) => {
    const watch = implementation.watch as (call: WatchCall) => void;
    server.addService(service, {
      ...implementation,
      watch: (call: WatchCall) => {
        watches.add(call);
        call.on("cancelled", () => watches.delete(call));
        watch(call);
      },
    });
  };
  // addService is all the library calls.
  return { addService } as Server;
}

/**
 * The gRPC health checking protocol on `server`: the whole server (service "") and each of
 * `services` answer NOT_SERVING until `serving()` (start-up is over) and again from
 * `draining()` on (SIGTERM), so probes and load balancers stop sending calls before the
 * server stops taking them. `endWatches()` ends the open Watch streams (after NOT_SERVING
 * reached them), once the server takes no new calls, so they do not delay its shutdown.
 */
export function serveHealth(server: Server, services: ReadonlyArray<Record<string, { path: string }>>) {
  const names = ["", ...services.map(serviceNameOf)];
  const health = new HealthImplementation(Object.fromEntries(names.map((name) => [name, "NOT_SERVING" as const])));
  const watches = new Set<WatchCall>();
  health.addToServer(keepingWatches(server, watches));
  const setAll = (status: "SERVING" | "NOT_SERVING") => {
    for (const name of names) health.setStatus(name, status);
  };
  return {
    serving: () => setAll("SERVING"),
    draining: () => setAll("NOT_SERVING"),
    endWatches: () => {
      for (const call of watches) call.end();
      watches.clear();
    },
  };
}

export type GrpcHealth = ReturnType<typeof serveHealth>;
