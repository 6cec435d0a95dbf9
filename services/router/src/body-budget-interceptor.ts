import { BODY_BYTES_METADATA, type BodyBudget, GatewayError, toGrpcError } from "@gateway/platform";
import { ServerInterceptingCall, type ServerInterceptor } from "@grpc/grpc-js";

/**
 * Router's own bound on the request bodies it works on at once (ROUTER_BODY_BYTES_IN_FLIGHT):
 * each edge bounds its own, but several edges may send to one router, and their budgets add up.
 * A call is weighed by the bytes edge declares for it and refused with the same 429 edge gives
 * (`too_many_large_requests`, which edge passes on) before its message is decoded; the bytes are
 * given back when the call ends or is cancelled.
 */
export function bodyBudgetInterceptor(budget: BodyBudget): ServerInterceptor {
  return (_method, call) => {
    let held = 0;
    const giveBack = () => {
      budget.giveBack(held);
      held = 0;
    };
    return new ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, pass) {
            const declared = Number(metadata.get(BODY_BYTES_METADATA)[0] ?? 0);
            const size = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
            try {
              budget.take(size);
              held = size;
              pass(metadata);
            } catch (error) {
              if (!(error instanceof GatewayError)) throw error;
              const { code, details, metadata: trailer } = toGrpcError(error);
              call.sendStatus({ code: code!, details: details!, metadata: trailer! });
            }
          },
          onCancel: giveBack,
        });
      },
      sendStatus(status, next) {
        giveBack();
        next(status);
      },
    });
  };
}
