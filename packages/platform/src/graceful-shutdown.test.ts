import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type Client,
  credentials,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServerWritableStream,
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

const countingService = {
  count: {
    path: "/test.Counter/Count",
    requestStream: false,
    responseStream: true,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (value: Buffer) => value,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (value: Buffer) => value,
  },
};
const CountingClient = makeGenericClientConstructor(countingService, "Counter");

it("lets a stream on a connection already recycled at its maximum age finish before the drain ends", async () => {
  // grpc-js's tryShutdown counts a session it has already closed as done at once; the stream on
  // it must still hold the drain open (router recycles its connections once a minute).
  const server = new Server({ "grpc.max_connection_age_ms": 300 });
  const health = serveHealth(server, []);
  const running = new Set<Promise<void>>();
  server.addService(countingService, {
    count: (call: ServerWritableStream<Buffer, Buffer>) => {
      const stream = (async () => {
        for (let index = 0; index < 20; index += 1) {
          call.write(Buffer.from([index]));
          await sleep(100);
        }
        call.end();
      })();
      running.add(stream);
      void stream.finally(() => running.delete(stream));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  health.serving();
  const client = new CountingClient(`127.0.0.1:${port}`, credentials.createInsecure()) as Client &
    Record<string, (request: unknown) => NodeJS.EventEmitter>;
  const stream = client.count!(Buffer.alloc(0));
  let received = 0;
  stream.on("data", () => (received += 1));
  const ended = once(stream, "status") as Promise<[StatusObject]>;
  // Past the connection's maximum age (jitter at most 10 %).
  await sleep(600);

  await drainGrpcServer(server, health, { readinessDelayMs: 0, graceMs: 20_000 });
  expect(running.size).toBe(0);
  const [status] = await ended;
  expect(status.code).toBe(0);
  expect(received).toBe(20);
  client.close();
});

it("waits for handlers still running after the transport reports every session closed, until the grace period ends", async () => {
  const server = new Server();
  const health = serveHealth(server, []);
  await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  let finished = false;
  const handler = sleep(400).then(() => {
    finished = true;
  });
  const handlers = { settled: (timeoutMs: number) => Promise.race([handler, sleep(timeoutMs)]) };

  await drainGrpcServer(server, health, { readinessDelayMs: 0, graceMs: 20_000 }, Date.now(), handlers);
  expect(finished).toBe(true);

  // A handler that never ends holds the drain only until the grace period is over.
  const stuck = { settled: (timeoutMs: number) => sleep(timeoutMs) };
  const startedAt = Date.now();
  await drainGrpcServer(
    new Server(),
    serveHealth(new Server(), []),
    { readinessDelayMs: 0, graceMs: 300 },
    startedAt,
    stuck,
  );
  expect(Date.now() - startedAt).toBeLessThan(2_000);
});
