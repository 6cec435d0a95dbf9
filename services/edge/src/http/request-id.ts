import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

/** Every response carries the id that names this request in logs, traces and usage records. */
export function assignRequestId(_request: Request, response: Response, next: NextFunction): void {
  const requestId = `req_${randomUUID().replaceAll("-", "")}`;
  response.locals.requestId = requestId;
  response.setHeader("x-request-id", requestId);
  next();
}
