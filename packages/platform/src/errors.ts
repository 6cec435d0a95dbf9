import { ErrorDetail } from "@gateway/proto/common/v1/common";
import { status as GrpcStatus, Metadata, type ServiceError } from "@grpc/grpc-js";
import { truncateUtf8 } from "./truncate-utf8.js";

const ERROR_TRAILER = "gateway-error-bin";

/**
 * An error the client may see, already in OpenAI's terms. Anything else that escapes is
 * reported as a generic server_error, so internals and vendor credentials never leak.
 */
export class GatewayError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly type: string,
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
    readonly retryAfterMs = 0,
    // Extra response headers, e.g. a rate limit's x-ratelimit-* headers.
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "GatewayError";
  }

  /** Whether the official SDKs should retry (their rule: 408, 409, 429 and 5xx); an empty balance will not refill itself. */
  get retryable(): boolean {
    if (this.code === "insufficient_quota") return false;
    return [408, 409, 429].includes(this.httpStatus) || this.httpStatus >= 500;
  }

  toBody() {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

// How much of a client's identifier an error message repeats.
const MAX_ECHOED_CHARS = 100;

/** A client-given identifier as an error message may quote it: cut short, so no message grows with the input. */
export const echoed = (identifier: string) =>
  identifier.length > MAX_ECHOED_CHARS ? `${identifier.slice(0, MAX_ECHOED_CHARS)}…` : identifier;

export const invalidRequest = (message: string, param: string | null = null, code = "invalid_request_error") =>
  new GatewayError(400, "invalid_request_error", code, message, param);

export const invalidApiKey = (message = "Incorrect API key provided.") =>
  new GatewayError(401, "invalid_request_error", "invalid_api_key", message);

export const modelNotFound = (model: string) =>
  new GatewayError(
    404,
    "invalid_request_error",
    "model_not_found",
    `The model \`${echoed(model)}\` does not exist or you do not have access to it.`,
    "model",
  );

/** An upload over a size limit; `param` names the form field. */
export const payloadTooLarge = (message: string, param: string | null = null) =>
  new GatewayError(413, "invalid_request_error", "request_too_large", message, param);

export const notFound = (message: string) => new GatewayError(404, "invalid_request_error", "not_found", message);

export const serverError = (message = "The server had an error while processing your request.") =>
  new GatewayError(500, "server_error", "server_error", message);

export const serviceUnavailable = (message: string, retryAfterMs = 1000) =>
  new GatewayError(503, "server_error", "service_unavailable", message, null, retryAfterMs);

const grpcCodeFor = (httpStatus: number): GrpcStatus => {
  if (httpStatus === 400) return GrpcStatus.INVALID_ARGUMENT;
  if (httpStatus === 401) return GrpcStatus.UNAUTHENTICATED;
  if (httpStatus === 403) return GrpcStatus.PERMISSION_DENIED;
  if (httpStatus === 404) return GrpcStatus.NOT_FOUND;
  // A conflict with what is stored (a reused idempotency key, a finished order, a sign-in linked elsewhere).
  if (httpStatus === 409) return GrpcStatus.FAILED_PRECONDITION;
  if (httpStatus === 429) return GrpcStatus.RESOURCE_EXHAUSTED;
  if (httpStatus === 503) return GrpcStatus.UNAVAILABLE;
  return GrpcStatus.INTERNAL;
};

// Status messages and trailers travel as HTTP/2 headers on a channel every tenant shares: a
// huge one breaks the connection for all of them, so what crosses gRPC is cut to this.
const MAX_GRPC_MESSAGE_BYTES = 512;

/** A failed call as a handler ends it: the gRPC error, and what was thrown, for logging. */
export type HandlerError = Partial<ServiceError> & { thrown?: unknown };

/** Turns any thrown value into a gRPC error whose trailer carries the OpenAI error (message cut short). */
export function toGrpcError(error: unknown): HandlerError {
  const gatewayError = error instanceof GatewayError ? error : serverError();
  const message = truncateUtf8(gatewayError.message, MAX_GRPC_MESSAGE_BYTES).text;
  const metadata = new Metadata();
  const detail = ErrorDetail.encode({
    httpStatus: gatewayError.httpStatus,
    type: gatewayError.type,
    code: gatewayError.code ?? "",
    param: truncateUtf8(gatewayError.param ?? "", MAX_GRPC_MESSAGE_BYTES).text,
    message,
    retryAfterMs: gatewayError.retryAfterMs,
    headers: gatewayError.headers,
  }).finish();
  metadata.set(ERROR_TRAILER, Buffer.from(detail));
  // The answer a handler chose is final: a client's retry policy repeats on another replica
  // only a call its replica lost (grpc-failover.ts), not a refusal (Redis down, say) that
  // would only take longer to come back the same.
  metadata.set("grpc-retry-pushback-ms", "-1");
  const grpcError: HandlerError = { code: grpcCodeFor(gatewayError.httpStatus), details: message, metadata };
  // Not enumerable: grpc-js never sees it, the handler's error log does.
  Object.defineProperty(grpcError, "thrown", { value: error, enumerable: false });
  return grpcError;
}

/** Reads the OpenAI error back out of a failed gRPC call; transport failures become 503. */
export function fromGrpcError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const serviceError = error as Partial<ServiceError>;
  const raw = serviceError.metadata?.get(ERROR_TRAILER)[0];
  if (raw instanceof Buffer) {
    const detail = ErrorDetail.decode(raw);
    return new GatewayError(
      detail.httpStatus,
      detail.type,
      detail.code || null,
      detail.message,
      detail.param || null,
      detail.retryAfterMs,
      detail.headers,
    );
  }
  // CANCELLED reaches a caller only when the server cut the call (its drain's grace period
  // ended): a caller that cancels a call itself has stopped listening for the answer.
  if (
    serviceError.code === GrpcStatus.UNAVAILABLE ||
    serviceError.code === GrpcStatus.DEADLINE_EXCEEDED ||
    serviceError.code === GrpcStatus.CANCELLED
  ) {
    return serviceUnavailable("The gateway is temporarily unable to serve this request. Please retry.");
  }
  return serverError();
}
