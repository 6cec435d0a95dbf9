import { once } from "node:events";
import {
  type Client,
  credentials,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type StatusObject,
} from "@grpc/grpc-js";
import { expect, it } from "vitest";
import { drainGrpcServer } from "./graceful-shutdown.js";
import { healthService, serveHealth } from "./grpc-health.js";

const HealthClient = makeGenericClientConstructor(healthService, "Health");

it("ends open health Watch streams with NOT_SERVING and OK instead of waiting out the grace period", async () => {
  const server = new Server();
  const health = serveHealth(server, []);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  health.serving();
  const client = new HealthClient(`127.0.0.1:${port}`, credentials.createInsecure()) as Client &
    Record<string, (request: unknown) => NodeJS.EventEmitter>;
  const watch = client.watch!({ service: "" });
  const watched: string[] = [];
  watch.on("data", (answer: { status: string }) => watched.push(answer.status));
  const ended = once(watch, "status") as Promise<[StatusObject]>;
  await new Promise<void>((resolve) => watch.once("data", () => resolve()));

  const startedAt = Date.now();
  await drainGrpcServer(server, health, { readinessDelayMs: 0, graceMs: 20_000 });
  expect(Date.now() - startedAt).toBeLessThan(5_000);
  const [status] = await ended;
  expect(status.code).toBe(0);
  expect(watched).toEqual(["SERVING", "NOT_SERVING"]);
  client.close();
});
