import { randomUUID } from "node:crypto";
import { withRequestId } from "@gateway/platform";
import type { NextFunction, Request, Response } from "express";

/**
 * Every response carries the id that names this request in logs, traces and usage records;
 * the work that serves it runs with the id in its context, so its log lines carry it too.
 */
export function assignRequestId(_request: Request, response: Response, next: NextFunction): void {
  const requestId = `req_${randomUUID().replaceAll("-", "")}`;
  response.locals.requestId = requestId;
  response.setHeader("x-request-id", requestId);
  withRequestId(requestId, next);
}
