import { isIPv4, isIPv6 } from "node:net";
import {
  type CallOptions,
  credentials,
  Metadata,
  type Server,
  type ServerUnaryCall,
  type ServiceError,
} from "@grpc/grpc-js";
import { toGrpcError } from "./errors.js";
import { injectTraceContext, withExtractedContext } from "./telemetry.js";

// Calls spread over every replica a target names (grpc-js's default, pick_first, would send
// them all to the first that answers).
export const loadBalancingConfig = [{ round_robin: {} }];

/** Client options shared by every internal gRPC client: one long-lived HTTP/2 channel. */
export const insecureChannel = () => credentials.createInsecure();
export const channelOptions = {
  "grpc.keepalive_time_ms": 30_000,
  "grpc.keepalive_timeout_ms": 10_000,
  // A peer that restarts (a crash, a rollout) is reached again within 2 s: grpc-js's default
  // back-off grows to 120 s, and the fault suite measured 20 s of 503s after a router restart.
  "grpc.initial_reconnect_backoff_ms": 250,
  "grpc.max_reconnect_backoff_ms": 2_000,
  "grpc.max_receive_message_length": 64 * 1024 * 1024,
  "grpc.max_send_message_length": 64 * 1024 * 1024,
  "grpc.service_config": JSON.stringify({ loadBalancingConfig }),
  // grpc-js resolves a dns target again only when a connection is lost (a pod gone): at most
  // once a second rather than its default 30 s, so a lost pod's siblings are known at once.
  "grpc.dns_min_time_between_resolutions_ms": 1_000,
};

// Schemes grpc-js resolves itself; a target with one is passed on as it is.
const targetScheme = /^(dns|ipv4|ipv6|unix|unix-abstract|vsock):/;

/**
 * The grpc-js target of a service address setting: one `host:port`; a comma-separated list of
 * IP `address:port`s (every replica of a local stack), balanced over all of them; or a gRPC
 * target URI, such as `dns:///router-grpc.gateway.svc.cluster.local:50051` (a Kubernetes
 * headless Service, whose name resolves to every ready pod).
 */
export function grpcTarget(url: string): string {
  const value = url.trim();
  if (targetScheme.test(value) || !value.includes(",")) return value;
  const addresses = value.split(",").map((address) => address.trim());
  const hosts = addresses.map((address) => {
    const match = /^(?:\[([^\]]+)\]|([^:]+)):\d+$/.exec(address);
    if (!match) throw new Error(`"${address}" in the gRPC address list "${value}" is not host:port`);
    return match[1] ?? match[2]!;
  });
  if (hosts.every((host) => isIPv4(host))) return `ipv4:${addresses.join(",")}`;
  if (hosts.every((host) => isIPv6(host))) return `ipv6:${addresses.join(",")}`;
  // grpc-js takes a list only of addresses of one family; a name is resolved by a dns target.
  throw new Error(
    `the gRPC address list "${value}" must be IPv4 or IPv6 addresses of one family; for a name use dns:///name:port`,
  );
}

/** Metadata carrying the active trace context to the next service. */
export function tracedMetadata(): Metadata {
  const metadata = new Metadata();
  injectTraceContext((key, value) => metadata.set(key, value));
  return metadata;
}

export function runInCallContext<T>(metadata: Metadata, work: () => T): T {
  return withExtractedContext((key) => {
    const value = metadata.get(key)[0];
    return typeof value === "string" ? value : undefined;
  }, work);
}

interface CancellableCall {
  on(event: "cancelled", listener: () => void): unknown;
  off(event: "cancelled", listener: () => void): unknown;
}

/**
 * A signal that fires when the caller cancels the call (or its deadline passes) before `answered`
 * is called. grpc-js reports the end of every call as "cancelled", answered or not; aborting
 * then cost each request an AbortError (its stack captured) and a run of abort listeners.
 */
export function callCancellation(call: CancellableCall): { signal: AbortSignal; answered(): void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  call.on("cancelled", abort);
  return { signal: controller.signal, answered: () => call.off("cancelled", abort) };
}

/** An AbortSignal that fires when the caller cancels the call (or its deadline passes). */
export function cancellationSignal(call: CancellableCall): AbortSignal {
  return callCancellation(call).signal;
}

/** What a unary handler knows of its call beyond the request. */
export interface UnaryContext {
  metadata: Metadata;
  signal: AbortSignal;
  // Response headers (initial metadata), added to those sent with the answer (or the error).
  sendMetadata(metadata: Metadata): void;
  // Sends the headers gathered so far plus `metadata` at once, resolving once HTTP/2 has
  // written them; later headers are dropped. A client's gRPC retries end once headers arrive
  // (see grpc-failover.ts), so a handler calls it before work that must not run twice.
  sendHeadersNow(metadata: Metadata): Promise<void>;
  // `hook` runs once the answer and its OK status have been handed to HTTP/2 (or the client
  // cancelled the call first, answered as before); never for an error.
  onDelivered(hook: () => void): void;
}

/** Adapts an async function to a grpc-js unary handler, with trace context, cancellation and error mapping. */
export function unaryHandler<Request, Response>(work: (request: Request, context: UnaryContext) => Promise<Response>) {
  return (
    call: ServerUnaryCall<Request, Response>,
    callback: (error: ServiceError | null, value?: Response) => void,
  ) => {
    const cancellation = callCancellation(call);
    // Held until the answer: headers sent on their own, ahead of it, cost both sides an HTTP/2
    // frame, a write and a wake-up of their own (measured: +1.7 ms p50 at one connection).
    let headers: Metadata | undefined;
    let headersSent = false;
    const answer = () => {
      cancellation.answered();
      if (headers && !headersSent) call.sendMetadata(headers);
    };
    const delivered: Array<() => void> = [];
    const context: UnaryContext = {
      metadata: call.metadata,
      signal: cancellation.signal,
      sendMetadata: (metadata) => {
        if (headers) headers.merge(metadata);
        else headers = metadata;
      },
      sendHeadersNow: (metadata) => {
        if (headers) metadata.merge(headers);
        headersSent = true;
        return sendHeadersNow(call, metadata);
      },
      onDelivered: (hook) => delivered.push(hook),
    };
    runInCallContext(call.metadata, () => work(call.request, context)).then(
      (response) => {
        answer();
        // grpc-js reports every call's end as "cancelled": after an answer, once the message
        // is written and its status handed to HTTP/2. HTTP/2 writes the status to the socket in
        // the next check phase, ahead of JavaScript's immediates, so the hooks wait for one.
        // A call its client already cancelled reports no end again; its hooks run at once.
        if (delivered.length > 0 && call.cancelled) setImmediate(runAll, delivered);
        else if (delivered.length > 0) call.once("cancelled", () => setImmediate(runAll, delivered));
        callback(null, response);
      },
      (error) => {
        answer();
        callback(toGrpcError(error) as ServiceError);
      },
    );
  };
}

/**
 * Sends a call's response headers and resolves once HTTP/2 has written them: it writes in the
 * next check phase, ahead of JavaScript's immediates, so a request made after this resolves
 * (a vendor's) cannot leave the process before the headers.
 */
export function sendHeadersNow(call: { sendMetadata(metadata: Metadata): void }, metadata: Metadata): Promise<void> {
  call.sendMetadata(metadata);
  return new Promise((resolve) => setImmediate(resolve));
}

function runAll(hooks: readonly (() => void)[]): void {
  for (const hook of hooks) hook();
}

/** Promise form of a generated unary client method. */
export function callUnary<Request, Response>(
  method: (
    request: Request,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: Response) => void,
  ) => unknown,
  request: Request,
  deadlineMs: number,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    method(request, tracedMetadata(), { deadline: Date.now() + deadlineMs }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

/** Lets in-flight calls finish for a moment, then cuts the rest. */
export function stopGrpcServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
