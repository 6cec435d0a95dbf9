import type { Logger } from "@gateway/platform";
import { type Request, type Response, Router } from "express";
import { notFound } from "../http/console-error.js";
import type { Ledger, LedgerAdmin } from "../ledger-client.js";
import type { SessionCookie } from "../sessions/session-cookie.js";
import type { Session, SessionLifetimes, SessionStore } from "../sessions/session-store.js";
import { newToken } from "../sessions/session-store.js";
import { type ProviderIdentity, SignInFailed, type SignInProvider } from "./identity.js";
import type { PendingSignIns } from "./pending-sign-ins.js";

export interface SignInDependencies {
  providers: SignInProvider[];
  ledger: Ledger;
  ledgerAdmin: LedgerAdmin;
  sessions: SessionStore;
  lifetimes: SessionLifetimes;
  sessionCookie: SessionCookie;
  // Binds a sign-in's `state` to the browser that started it, in that browser's cookie.
  pending: PendingSignIns;
  loadSession: (request: Request) => Promise<Session | undefined>;
  publicUrl: () => string;
  logger: Logger;
}

const failurePage = (code: string) => `/signin?error=${encodeURIComponent(code)}`;

/** The GitHub and OpenID Connect sign-ins: start (302 to the provider) and callback (302 back into the app). */
export function signInRoutes(dependencies: SignInDependencies): Router {
  const { providers, ledger, sessions, lifetimes, sessionCookie, pending, logger } = dependencies;
  const router = Router();
  const redirectUri = (provider: SignInProvider) => `${dependencies.publicUrl()}/api/auth/${provider.id}/callback`;
  const providerOf = (request: Request) => {
    const provider = providers.find((candidate) => candidate.id === request.params.provider);
    if (!provider) throw notFound("No such sign-in provider is configured.");
    return provider;
  };

  router.get("/providers", (_request, response) => {
    response.json({ providers: providers.map(({ id, name }) => ({ id, name })) });
  });

  router.get("/:provider", async (request, response) => {
    const provider = providerOf(request);
    const link = request.query.link === "1" && (await dependencies.loadSession(request)) !== undefined;
    const state = newToken();
    let started: Awaited<ReturnType<SignInProvider["start"]>>;
    try {
      started = await provider.start(redirectUri(provider), state);
    } catch (error) {
      logger.warn({ err: error, provider: provider.id }, "sign-in could not start");
      response.redirect(302, failurePage(error instanceof SignInFailed ? error.code : "provider_unavailable"));
      return;
    }
    pending.save(response, {
      state,
      provider: provider.id,
      link,
      codeVerifier: started.codeVerifier,
      nonce: started.nonce,
    });
    response.redirect(302, started.url);
  });

  const signIn = async (response: Response, identity: ProviderIdentity) => {
    const { account } = await ledger.findOrCreateAccountByIdentity({
      provider: identity.provider,
      subject: identity.subject,
      email: identity.email,
      displayName: identity.displayName,
    });
    if (!account) throw new Error("ledger answered no account");
    // An operator disabled the account: no new session (the old ones were ended then).
    if ((await dependencies.ledgerAdmin.getAccountStatus({ accountId: account.accountId })).disabledAtMs > 0) {
      response.redirect(302, failurePage("account_disabled"));
      return;
    }
    // A fresh id at every sign-in: an id planted before it (session fixation) is worth nothing.
    const session = await sessions.create({
      accountId: account.accountId,
      provider: identity.provider,
      subject: identity.subject,
    });
    sessionCookie.set(response, session.id, lifetimes.maxSeconds);
    response.redirect(302, "/");
  };

  router.get("/:provider/callback", async (request, response) => {
    const provider = providerOf(request);
    const state = typeof request.query.state === "string" ? request.query.state : "";
    const started = pending.take(request, response);
    // Linking links to the account of the session this browser still holds.
    const linkAccountId = started?.link ? (await dependencies.loadSession(request))?.accountId : undefined;
    if (!started || started.state !== state || started.provider !== provider.id || (started.link && !linkAccountId)) {
      response.redirect(302, failurePage("invalid_state"));
      return;
    }
    let identity: ProviderIdentity;
    try {
      const callbackUrl = new URL(request.originalUrl, dependencies.publicUrl());
      identity = await provider.finish(callbackUrl, redirectUri(provider), started);
    } catch (error) {
      if (!(error instanceof SignInFailed)) throw error;
      logger.info({ provider: provider.id, code: error.code, reason: error.message }, "sign-in failed");
      response.redirect(302, failurePage(error.code));
      return;
    }
    if (!linkAccountId) return signIn(response, identity);
    try {
      await ledger.linkIdentity({ accountId: linkAccountId, ...identity });
    } catch (error) {
      logger.info({ err: error, provider: provider.id }, "linking refused");
      response.redirect(302, `/settings?linkError=${encodeURIComponent(provider.id)}`);
      return;
    }
    response.redirect(302, `/settings?linked=${encodeURIComponent(provider.id)}`);
  });

  return router;
}
