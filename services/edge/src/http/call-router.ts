import { fromGrpcError, startPiece } from "@gateway/platform";
import type { CallOptions, ClientUnaryCall, Metadata, ServiceError } from "@grpc/grpc-js";
import type { Response } from "express";
import { routerMetadata } from "./body-budget.js";
import { copyRateLimitHeaders } from "./rate-limit-headers.js";

/**
 * A unary router call on behalf of an HTTP request: traced, bounded by a deadline, and
 * cancelled when the client goes away (which cancels the vendor request). Failures come
 * back as the OpenAI errors the router chose; the router's rate-limit headers are copied.
 */
export function callRouter<Request, Answer>(
  method: (
    request: Request,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, answer: Answer) => void,
  ) => ClientUnaryCall,
  request: Request,
  response: Response,
  deadlineMs: number,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const timed = startPiece("router-call");
    const call = method(request, routerMetadata(response), { deadline: Date.now() + deadlineMs }, (error, answer) => {
      timed?.();
      error ? reject(fromGrpcError(error)) : resolve(answer);
    });
    copyRateLimitHeaders(call, response);
    response.on("close", () => {
      if (!response.writableFinished) call.cancel();
    });
  });
}
