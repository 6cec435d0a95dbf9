import type { Metadata, sendUnaryData, UntypedHandleCall, UntypedServiceImplementation } from "@grpc/grpc-js";
import { GatewayError, type HandlerError } from "./errors.js";
import type { Logger } from "./logger.js";

interface AnyCall {
  request?: unknown;
  metadata: Metadata;
  on(event: "error", listener: (error: HandlerError) => void): unknown;
}

type AnyHandler = (call: AnyCall, callback?: sendUnaryData<unknown>) => void;

/** The request id the caller sent: in the request's Caller, else in the metadata. */
function requestIdOf(call: AnyCall): string | undefined {
  const caller = (call.request as { caller?: { requestId?: string } } | undefined)?.caller;
  if (caller?.requestId) return caller.requestId;
  const header = call.metadata.get("x-request-id")[0];
  return typeof header === "string" ? header : undefined;
}

function logFailure(logger: Logger, method: string, call: AnyCall, error: HandlerError): void {
  const thrown = error.thrown ?? error;
  const fields = { rpc: method, request_id: requestIdOf(call), grpc_code: error.code };
  if (thrown instanceof GatewayError) {
    // The client's mistakes are routine; the gateway's own failures are worth a look.
    const level = thrown.httpStatus >= 500 ? "warn" : "info";
    logger[level](
      { ...fields, status: thrown.httpStatus, code: thrown.code, error: error.details },
      "gRPC call failed",
    );
  } else {
    logger.error({ ...fields, err: thrown }, "gRPC call failed");
  }
}

/**
 * Wraps every handler of a service implementation so each failed call is logged once with
 * its request id: unary calls where they answer, streaming calls where they emit their error.
 */
export function logHandlerErrors<Service extends UntypedServiceImplementation>(
  logger: Logger,
  service: Service,
): Service {
  const wrap = (method: string, handler: AnyHandler): AnyHandler => {
    return (call, callback) => {
      if (callback) {
        handler(call, (error, ...rest) => {
          if (error) logFailure(logger, method, call, error);
          callback(error, ...rest);
        });
        return;
      }
      call.on("error", (error) => logFailure(logger, method, call, error));
      handler(call);
    };
  };
  const wrapped = Object.entries(service).map(([method, handler]) => [
    method,
    wrap(method, handler as unknown as AnyHandler) as unknown as UntypedHandleCall,
  ]);
  return Object.fromEntries(wrapped) as Service;
}
