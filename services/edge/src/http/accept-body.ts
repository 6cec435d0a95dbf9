import type { IncomingMessage, RequestListener, Server } from "node:http";
import type { NextFunction, Request, Response } from "express";

const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * Handles `Expect: 100-continue` requests without Node's automatic `100 Continue`, so a client
 * that is refused (no key, bad key, unknown path) is answered before it sends its body at all.
 */
export function deferContinue(server: Server, handler: RequestListener): void {
  server.on("checkContinue", (request: IncomingMessage, response) => {
    awaitingContinue.add(request);
    handler(request, response);
  });
}

/** Asks a client waiting on `Expect: 100-continue` for its body: the route is about to read it. */
export function acceptBody(request: Request, response: Response, next: NextFunction): void {
  if (awaitingContinue.delete(request)) response.writeContinue();
  next();
}
