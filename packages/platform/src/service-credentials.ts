import {
  type ClientOptions,
  InterceptingCall,
  type Interceptor,
  ServerInterceptingCall,
  type ServerInterceptor,
  type ServerOptions,
  status,
} from "@grpc/grpc-js";
import { channelOptions } from "./grpc.js";
import { healthMethodPaths } from "./grpc-health.js";
import type { Logger } from "./logger.js";
import {
  SERVICE_TOKEN_LIFETIME_MS,
  type ServiceName,
  serviceTokenVerifier,
  signServiceToken,
} from "./service-token.js";

export const SERVICE_TOKEN_METADATA = "x-gateway-service-token";

/** Who may call what, by method path (`/pkg.Service/Method`); a method not named has no callers. */
export type CallerPolicy = Readonly<Record<string, readonly ServiceName[]>>;

/** Every method of a generated service definition, open to the same callers. */
export function callersOfEveryMethod(
  service: Record<string, { path: string }>,
  callers: readonly ServiceName[],
): CallerPolicy {
  return Object.fromEntries(Object.values(service).map((method) => [method.path, callers]));
}

export interface ServiceTrustSettings {
  GATEWAY_ENV: "production" | "development";
  GATEWAY_SERVICE_TOKEN_SECRET?: string | undefined;
}

/**
 * The secret internal gRPC calls are signed with. Production refuses to run without it;
 * development without one neither signs nor checks, so a service can be run by hand.
 */
export function serviceTokenSecret(settings: ServiceTrustSettings, logger: Logger): string | undefined {
  if (settings.GATEWAY_SERVICE_TOKEN_SECRET) return settings.GATEWAY_SERVICE_TOKEN_SECRET;
  if (settings.GATEWAY_ENV === "production") {
    throw new Error(
      "GATEWAY_SERVICE_TOKEN_SECRET is required in production (GATEWAY_ENV=production): internal gRPC calls are signed with it",
    );
  }
  logger.warn("GATEWAY_SERVICE_TOKEN_SECRET is unset: internal gRPC calls are neither signed nor checked");
  return undefined;
}

/** Adds this service's token to every outgoing call, re-signed well before it expires. */
function serviceTokenInterceptor(secret: string, service: ServiceName): Interceptor {
  let token = "";
  let signedAt = 0;
  const current = () => {
    const now = Date.now();
    if (now - signedAt > SERVICE_TOKEN_LIFETIME_MS / 3) {
      token = signServiceToken(secret, service, now);
      signedAt = now;
    }
    return token;
  };
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(SERVICE_TOKEN_METADATA, current());
        next(metadata, listener);
      },
    });
}

export type ServiceClientOptions = ClientOptions & { interceptors: Interceptor[] };

/** Client options for calls made as `service`: the shared channel settings plus its token. */
export function serviceClientOptions(service: ServiceName, secret: string | undefined): ServiceClientOptions {
  return { ...channelOptions, interceptors: secret ? [serviceTokenInterceptor(secret, service)] : [] };
}

/**
 * Refuses a call before its handler runs unless it carries a current token of a service the
 * policy lets call that method: UNAUTHENTICATED without a valid token, PERMISSION_DENIED for
 * a caller not on the list (methods the policy does not name have no callers).
 */
function serviceAuthInterceptor(secret: string, policy: CallerPolicy): ServerInterceptor {
  const verify = serviceTokenVerifier(secret);
  return (method, call) =>
    // The standard health service is open: Kubernetes gRPC probes (and load balancers) cannot
    // present a token, and it answers only SERVING or NOT_SERVING, nothing of an account.
    healthMethodPaths.has(method.path)
      ? new ServerInterceptingCall(call)
      : new ServerInterceptingCall(call, {
          start(next) {
            next({
              onReceiveMetadata(metadata, pass) {
                const token = metadata.get(SERVICE_TOKEN_METADATA)[0];
                const caller = typeof token === "string" ? verify(token) : undefined;
                if (!caller) {
                  call.sendStatus({ code: status.UNAUTHENTICATED, details: "missing or invalid service token" });
                } else if (!(policy[method.path] ?? []).includes(caller)) {
                  call.sendStatus({ code: status.PERMISSION_DENIED, details: `${caller} may not call ${method.path}` });
                } else {
                  pass(metadata);
                }
              },
            });
          },
        });
}

/** Server options that check every call against `policy` (no checks without a secret: development only). */
export function serviceServerOptions(
  secret: string | undefined,
  policy: CallerPolicy,
  options: ServerOptions = {},
): ServerOptions {
  // The token check first: no other interceptor runs for a caller it refuses.
  const auth = secret ? [serviceAuthInterceptor(secret, policy)] : [];
  return {
    // Clients resolve a dns target again only when a connection closes: closing each one after a
    // minute (GOAWAY; its calls finish, with no grace limit for long streams) lets a pod a
    // scale-up added take calls within a minute. grpc-js adds ±10 % jitter.
    "grpc.max_connection_age_ms": 60_000,
    ...options,
    interceptors: [...auth, ...(options.interceptors ?? [])],
  };
}
