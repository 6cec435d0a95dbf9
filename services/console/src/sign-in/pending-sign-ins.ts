import { parse } from "cookie";
import type { Request, Response } from "express";
import { z } from "zod";
import { SessionCookie } from "../sessions/session-cookie.js";

// A sign-in between its redirect to the provider and the callback lives in the browser's own
// cookie, not in Redis: anyone may start one, and each start used to leave a 10-minute record
// behind (20,000 in 6 s from one address). Nothing in it needs to be secret from that browser
// or trusted from it: `state` must match the callback's (which is what stops a callback from
// another browser), PKCE's verifier and the OIDC nonce only let the browser finish its own
// sign-in, and linking links to the account of the session the browser presents at the callback.

const pendingSignIn = z
  .object({
    state: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/),
    provider: z.string().max(64),
    // Set when a signed-in account links this provider instead of signing in.
    link: z.boolean(),
    codeVerifier: z.string().max(256).optional(),
    nonce: z.string().max(256).optional(),
  })
  .strict();

export type PendingSignIn = z.infer<typeof pendingSignIn>;

const lifetimeSeconds = 600;
const maxCookieLength = 2048;

/** The pending sign-in's cookie, made like the session cookie (httpOnly, SameSite=Lax so the provider's redirect back carries it). */
export class PendingSignIns {
  private readonly cookie: SessionCookie;

  constructor(secure: boolean) {
    this.cookie = new SessionCookie(secure, "console_sign_in");
  }

  save(response: Response, pending: PendingSignIn): void {
    this.cookie.set(response, Buffer.from(JSON.stringify(pending)).toString("base64url"), lifetimeSeconds);
  }

  /** The browser's pending sign-in, cleared as it is read: a sign-in is finished once. */
  take(request: Request, response: Response): PendingSignIn | undefined {
    this.cookie.clear(response);
    const value = parse(request.headers.cookie ?? "")[this.cookie.name];
    if (!value || value.length > maxCookieLength) return undefined;
    try {
      const parsed = pendingSignIn.safeParse(JSON.parse(Buffer.from(value, "base64url").toString()));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}
