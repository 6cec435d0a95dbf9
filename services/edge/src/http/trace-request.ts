import { startPiece, tracer } from "@gateway/platform";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { NextFunction, Request, Response } from "express";

/** Opens the request's root span; everything downstream (gRPC calls) runs inside it. */
export function traceRequest(request: Request, response: Response, next: NextFunction): void {
  const opening = startPiece("spans");
  tracer.startActiveSpan(
    `${request.method} ${request.baseUrl}${request.path}`,
    {
      kind: SpanKind.SERVER,
      attributes: { "http.request.method": request.method, "url.path": request.originalUrl.split("?")[0] },
    },
    (span) => {
      // An unrecorded trace (90 % by default) still needs its span for the trace id; nothing more.
      if (!span.isRecording()) {
        opening?.();
        return next();
      }
      span.setAttribute("gateway.request_id", String(response.locals.requestId));
      response.once("close", () => {
        const ending = startPiece("spans");
        span.setAttribute("http.response.status_code", response.statusCode);
        if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        ending?.();
      });
      opening?.();
      next();
    },
  );
}
