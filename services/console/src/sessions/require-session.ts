import { timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { csrfFailed, notSignedIn } from "../http/console-error.js";
import type { SessionCookie } from "./session-cookie.js";
import type { Session, SessionStore } from "./session-store.js";

const stateChanging = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * A state change must carry the session's CSRF token in `x-csrf-token` (a page of another site
 * cannot read it), and a browser's Origin, when sent, must be the console's own.
 */
export function passesCsrfCheck(request: Request, session: Session, publicOrigin: () => string): boolean {
  const token = request.get("x-csrf-token");
  if (!token || !sameText(token, session.csrfToken)) return false;
  const origin = request.get("origin");
  if (origin !== undefined && origin !== publicOrigin()) return false;
  const site = request.get("sec-fetch-site");
  return site === undefined || site === "same-origin" || site === "none";
}

export function loadSession(
  store: SessionStore,
  cookie: SessionCookie,
): (request: Request) => Promise<Session | undefined> {
  return async (request) => {
    const id = cookie.read(request);
    return id ? store.touch(id) : undefined;
  };
}

/** Signed in (else 401) and, for state changes, through the CSRF check (else 403); the session goes in locals. */
export function requireSession(
  load: (request: Request) => Promise<Session | undefined>,
  publicOrigin: () => string,
): RequestHandler {
  return async (request: Request, response: Response, next: NextFunction) => {
    const session = await load(request);
    if (!session) throw notSignedIn();
    if (stateChanging.has(request.method) && !passesCsrfCheck(request, session, publicOrigin)) throw csrfFailed();
    response.locals.session = session;
    next();
  };
}

export const sessionOf = (response: Response): Session => response.locals.session as Session;
