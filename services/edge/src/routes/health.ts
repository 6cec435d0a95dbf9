import { callUnary } from "@gateway/platform";
import type { RouterServiceClient, ServingStatus } from "@gateway/proto/router/v1/router";
import type { Client } from "@grpc/grpc-js";
import type { Request, Response } from "express";
import type { NatsConnection } from "nats";

const waitForReady = (client: Client, timeoutMs: number) =>
  new Promise<void>((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutMs, (error) => (error ? reject(error) : resolve())),
  );

/** Liveness: the process answers. */
export function liveness(_request: Request, response: Response) {
  response.json({ status: "ok" });
}

/**
 * Readiness: every dependency on the request path is reachable, and the router can serve at
 * least one model, and the process is not draining. Channels disabled for want of a vendor key are listed; a deployment that
 * serves only some vendors stays ready, one that can serve nothing is not.
 */
export function readiness(dependencies: {
  router: RouterServiceClient;
  ledger: Client;
  nats: NatsConnection;
  drain: { readonly ready: boolean };
}) {
  const { router } = dependencies;
  return async (_request: Request, response: Response) => {
    // A draining edge is not ready whatever its dependencies say: the load balancer must stop sending.
    if (!dependencies.drain.ready) {
      response.status(503).json({ status: "draining" });
      return;
    }
    const serving = callUnary(router.getServingStatus.bind(router), {}, 1_000);
    const checks = {
      router: serving,
      ledger: waitForReady(dependencies.ledger, 1_000),
      nats: dependencies.nats.isClosed() ? Promise.reject(new Error("closed")) : dependencies.nats.flush(),
    };
    const results = await Promise.allSettled(Object.values(checks));
    const status = Object.fromEntries(
      Object.keys(checks).map((name, index) => [name, results[index]!.status === "fulfilled" ? "ok" : "unreachable"]),
    );
    const channels: ServingStatus | undefined = await serving.catch(() => undefined);
    const ready = results.every((result) => result.status === "fulfilled") && (channels?.servableModels ?? 0) > 0;
    response.status(ready ? 200 : 503).json({
      status: ready ? "ready" : "not_ready",
      dependencies: status,
      ...(channels && {
        channels: {
          disabled: channels.disabledChannels,
          models_without_channels: channels.modelsWithoutChannels,
          servable_models: channels.servableModels,
        },
      }),
    });
  };
}
