import { gatewayMeter, localCounter, localUpDownCounter, startPiece } from "@gateway/platform";
import type { NextFunction, Request, RequestHandler, Response } from "express";

// Seconds: from a cached models list to a long generation streamed to the end.
const LATENCY_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

const mounts = ["/v1", "/v1beta"];

/**
 * The route as a bounded label: the Express route pattern that matched, behind the path its
 * router is mounted at (`/v1`, `/v1beta`), "unmatched" when none did; never the raw path.
 */
function routeOf(request: Request): string {
  const pattern: unknown = request.route?.path;
  if (typeof pattern !== "string") return "unmatched";
  // Not request.baseUrl: Express restores it once an error leaves the router.
  const mount = mounts.find((prefix) => request.originalUrl.startsWith(`${prefix}/`));
  return mount && !pattern.startsWith(`${mount}/`) ? `${mount}${pattern}` : pattern;
}

/**
 * The model as a bounded label. Edge holds no catalogue, so a client's `model` is trusted
 * only once the answer succeeded: router or video then found it in the catalogue. Anything
 * else is "unknown"; requests without a model are "none".
 */
function modelOf(request: Request, status: number): string {
  const model: unknown = (request.body as { model?: unknown } | undefined)?.model;
  if (model === undefined) return "none";
  return status < 400 && typeof model === "string" ? model : "unknown";
}

/** Counts and times every HTTP request by route, method, status, model and error type. */
export function countRequests(): RequestHandler {
  const meter = gatewayMeter();
  const requests = localCounter(meter, "gateway_edge_requests_total", {
    description: "HTTP requests answered, by route, method, status, model and error type",
  });
  const duration = meter.createHistogram("gateway_edge_request_duration_seconds", {
    description: "From the request's arrival to the last byte of its answer (a stream's end)",
    unit: "s",
    advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
  });
  const inFlight = localUpDownCounter(meter, "gateway_edge_requests_in_flight", {
    description: "HTTP requests (streams included) not yet answered in full",
  });
  return (request: Request, response: Response, next: NextFunction) => {
    const opening = startPiece("metrics");
    const startedAt = performance.now();
    inFlight.add(1);
    opening?.();
    response.once("close", () => {
      const timed = startPiece("metrics");
      inFlight.add(-1);
      const status = response.statusCode;
      const attributes = {
        route: routeOf(request),
        method: request.method,
        status: String(status),
        model: modelOf(request, status),
        error_type: String(response.locals.errorType ?? "none"),
      };
      requests.add(1, attributes);
      duration.record((performance.now() - startedAt) / 1000, attributes);
      timed?.();
    });
    next();
  };
}
