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

/** Readiness: every dependency on the request path is reachable. */
export function readiness(dependencies: { router: Client; ledger: Client; nats: NatsConnection }) {
  return async (_request: Request, response: Response) => {
    const checks = {
      router: waitForReady(dependencies.router, 1_000),
      ledger: waitForReady(dependencies.ledger, 1_000),
      nats: dependencies.nats.isClosed() ? Promise.reject(new Error("closed")) : dependencies.nats.flush(),
    };
    const results = await Promise.allSettled(Object.values(checks));
    const status = Object.fromEntries(
      Object.keys(checks).map((name, index) => [name, results[index]!.status === "fulfilled" ? "ok" : "unreachable"]),
    );
    const ready = results.every((result) => result.status === "fulfilled");
    response.status(ready ? 200 : 503).json({ status: ready ? "ready" : "not_ready", dependencies: status });
  };
}
