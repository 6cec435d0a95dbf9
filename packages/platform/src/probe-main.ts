// node probe-main.js URL: exits 0 when the service at URL is healthy, 1 otherwise, within 3 s.
// The images' health checks outside Kubernetes (compose.yaml): http(s)://…/healthz answers 2xx,
// grpc://host:port answers SERVING to the gRPC health checking protocol (grpc.health.v1, as the
// kubelet's grpc probe asks), tcp://host:port accepts a connection.
import { connect } from "node:net";
import { credentials, makeGenericClientConstructor } from "@grpc/grpc-js";
import { healthService } from "./grpc-health.js";

const timeoutMs = 3_000;

async function httpHealthy(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return response.ok;
}

function grpcHealthy(address: string): Promise<boolean> {
  const Health = makeGenericClientConstructor(healthService, "Health");
  const client = new Health(address, credentials.createInsecure()) as InstanceType<typeof Health> & {
    check: (request: object, options: object, done: (error: unknown, reply?: { status?: unknown }) => void) => void;
  };
  return new Promise((resolve) => {
    client.check({ service: "" }, { deadline: Date.now() + timeoutMs }, (error, reply) => {
      client.close();
      // SERVING is 1 in the protocol; the loader may give the enum's name instead.
      resolve(!error && (reply?.status === 1 || reply?.status === "SERVING"));
    });
  });
}

function tcpHealthy(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(false));
  });
}

export function probe(target: string): Promise<boolean> {
  const url = new URL(target);
  if (url.protocol === "grpc:") return grpcHealthy(url.host);
  if (url.protocol === "tcp:") return tcpHealthy(url.hostname, Number(url.port));
  return httpHealthy(target);
}

const target = process.argv[2];
if (!target) {
  console.error("usage: node probe-main.js http://HOST:PORT/PATH | grpc://HOST:PORT | tcp://HOST:PORT");
  process.exit(2);
}
probe(target).then(
  (healthy) => process.exit(healthy ? 0 : 1),
  () => process.exit(1),
);
