import { once } from "node:events";
import http2 from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type Client,
  credentials,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServiceError,
} from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { type HandlerError, serviceUnavailable, toGrpcError } from "./errors.js";
import { channelOptions } from "./grpc.js";
import { failoverOptions } from "./grpc-failover.js";

// A one-method service of raw bytes: enough to see which replica answers a call.
const identity = (bytes: Buffer) => bytes;
const echo = {
  call: {
    path: "/test.Echo/Call",
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
} as const;
const EchoClient = makeGenericClientConstructor(echo, "Echo");
type Call = (request: Buffer, callback: (error: ServiceError | null, answer?: Buffer) => void) => void;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A replica that answers every call with "ok", or refuses each as a handler does (`refusing` counts them). */
async function replica(refusing?: { calls: number }): Promise<number> {
  const server = new Server();
  server.addService(echo, {
    call: (_call: unknown, callback: (error: HandlerError | null, answer?: Buffer) => void) => {
      if (!refusing) return callback(null, Buffer.from("ok"));
      refusing.calls += 1;
      callback(toGrpcError(serviceUnavailable("Billing is temporarily unavailable.")));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  cleanups.push(() => void server.forceShutdown());
  return port;
}

/**
 * A replica that dies as a killed process does (its listener closed, its connections dropped)
 * a moment after its first call arrived, having sent the response headers of every call
 * first when `headersFirst`. Counts the calls it received.
 */
async function dyingReplica(headersFirst: boolean) {
  const server = http2.createServer();
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => sockets.add(socket));
  const kill = () => {
    server.close();
    for (const socket of sockets) socket.destroy();
  };
  const received = { calls: 0 };
  server.on("stream", (stream) => {
    received.calls += 1;
    if (headersFirst) stream.respond({ ":status": 200, "content-type": "application/grpc" });
    if (received.calls > 1) return;
    setTimeout(kill, 100);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanups.push(kill);
  return { port: (server.address() as AddressInfo).port, received };
}

/** Sends `count` calls at once over a channel balanced over both replicas, once both are connected. */
async function callBoth(ports: number[], count: number) {
  const client = new EchoClient(
    `ipv4:${ports.map((port) => `127.0.0.1:${port}`).join(",")}`,
    credentials.createInsecure(),
    {
      ...channelOptions,
      ...failoverOptions([echo.call]),
    },
  ) as unknown as Client & { call: Call };
  cleanups.push(() => client.close());
  await new Promise<void>((resolve, reject) =>
    client.waitForReady(Date.now() + 5_000, (error) => (error ? reject(error) : resolve())),
  );
  // round_robin is ready with its first connection; the second follows at once.
  await sleep(200);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<string>((resolve) =>
          client.call(Buffer.from("hi"), (error, answer) => resolve(error ? `error ${error.code}` : String(answer))),
        ),
    ),
  );
}

describe("failoverOptions", () => {
  it("sends a call whose replica died before answering any header to another replica", async () => {
    const dying = await dyingReplica(false);
    const answers = await callBoth([dying.port, await replica()], 6);
    expect(dying.received.calls).toBeGreaterThan(0);
    expect(answers).toEqual(Array(6).fill("ok"));
  });

  it("never sends a call whose replica had sent its headers to another replica: it fails UNAVAILABLE", async () => {
    const dying = await dyingReplica(true);
    const answers = await callBoth([dying.port, await replica()], 6);
    expect(dying.received.calls).toBeGreaterThan(0);
    // UNAVAILABLE is 14.
    expect(answers.filter((answer) => answer !== "ok")).toEqual(Array(dying.received.calls).fill("error 14"));
  });

  it("never sends a call a replica's handler refused (UNAVAILABLE) to another replica", async () => {
    const refusing = { calls: 0 };
    const answers = await callBoth([await replica(refusing), await replica()], 6);
    expect(refusing.calls).toBeGreaterThan(0);
    expect(answers.filter((answer) => answer !== "ok")).toEqual(Array(refusing.calls).fill("error 14"));
  });
});
