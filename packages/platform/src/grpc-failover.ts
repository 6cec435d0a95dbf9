import type { ChannelOptions } from "@grpc/grpc-js";
import { loadBalancingConfig } from "./grpc.js";

/**
 * The response header router sends right before its first vendor request. Like any response
 * header it ends the client's retries of the call (below): from then on a vendor may be
 * working, and paid, for it.
 */
export const vendorCalledHeader = "x-gateway-vendor-called";

/** A method of a generated service definition, named by its path `/package.Service/Method`. */
interface MethodPath {
  path: string;
}

// grpc-js retries an attempt that failed with one of these codes before any response header
// arrived: a replica killed (the connection dropped: UNAVAILABLE), draining (refused streams,
// a GOAWAY: UNAVAILABLE) or cut at the end of its grace period (CANCELLED). The attempt
// after the first goes to the next ready replica of round-robin. An error a handler answered
// says `grpc-retry-pushback-ms: -1` (errors.ts), which ends the retries; a call with more than
// grpc-js's per-call retry buffer (1 MB) of request sent is not retried.
// Five attempts (grpc-js's most) up to 1.5 s apart in all: a busy machine can take that long
// to show a client which replica is gone, or to bring a replaced one back.
const retryPolicy = {
  maxAttempts: 5,
  initialBackoff: "0.1s",
  maxBackoff: "1s",
  backoffMultiplier: 2,
  retryableStatusCodes: ["UNAVAILABLE", "CANCELLED"],
};

function methodName({ path }: MethodPath): { service: string; method: string } {
  const [, service, method] = /^\/([^/]+)\/([^/]+)$/.exec(path) ?? [];
  if (!service || !method) throw new Error(`"${path}" is not a gRPC method path`);
  return { service, method };
}

/**
 * The service config of `channelOptions` (round-robin over every address of the target) plus
 * sending a call that failed on one replica to another, for `retryable` methods only: those a second
 * run cannot harm (reads, writes keyed by what they write), or whose server sends its
 * headers before anything that must not run twice (router, before it calls a vendor).
 */
export function failoverOptions(retryable: readonly MethodPath[]): ChannelOptions {
  const config = {
    loadBalancingConfig,
    methodConfig: [{ name: retryable.map(methodName), retryPolicy }],
  };
  return { "grpc.service_config": JSON.stringify(config) };
}

/** Every method of generated service definitions, for `failoverOptions`. */
export function everyMethod(...services: readonly Record<string, MethodPath>[]): MethodPath[] {
  return services.flatMap((service) => Object.values(service));
}
