import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response, Router } from "express";
import { z } from "zod";
import { notAdmin, parseInput } from "../http/console-error.js";
import { accountJson, identityJson } from "../http/to-json.js";
import type { Ledger } from "../ledger-client.js";
import { sessionOf } from "../sessions/require-session.js";
import type { SessionCookie } from "../sessions/session-cookie.js";
import type { SessionStore } from "../sessions/session-store.js";

export interface AccountRouteDependencies {
  ledger: Ledger;
  sessions: SessionStore;
  sessionCookie: SessionCookie;
  adminIdentities: string[];
  providers: { id: string; name: string }[];
  defaultLogCapture: string;
}

const settingsBody = z.object({ logCapture: z.enum(["full", "metadata", "off"]) });
const adminAccountsQuery = z.object({
  query: z.string().max(200).optional(),
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
const creditBody = z.object({
  amountMicros: z
    .number()
    .int()
    .refine((amount) => amount !== 0, "must not be 0")
    .refine((amount) => Math.abs(amount) <= 1e15, "too large"),
  reason: z.string().trim().min(1).max(500),
  // A retried click with the same key credits once.
  idempotencyKey: z.string().min(8).max(128).optional(),
});

/** The session, settings and the admin pages' calls; answers the check other admin routes run first. */
export function accountRoutes(router: Router, dependencies: AccountRouteDependencies): RequestHandler {
  const { ledger, sessions, sessionCookie, adminIdentities } = dependencies;
  const identitiesOf = async (response: Response) =>
    (await ledger.listIdentities({ accountId: sessionOf(response).accountId })).identities;
  const isAdmin = (identities: { provider: string; subject: string }[]) =>
    identities.some(({ provider, subject }) => adminIdentities.includes(`${provider}:${subject}`));

  router.get("/session", async (_request, response) => {
    const session = sessionOf(response);
    const [account, identities] = await Promise.all([
      ledger.getAccount({ accountId: session.accountId }),
      identitiesOf(response),
    ]);
    response.json({
      account: accountJson(account),
      identities: identities.map(identityJson),
      isAdmin: isAdmin(identities),
      csrfToken: session.csrfToken,
    });
  });

  router.post("/auth/sign-out", async (_request, response) => {
    await sessions.end(sessionOf(response));
    sessionCookie.clear(response);
    response.status(204).end();
  });

  router.post("/auth/sign-out-everywhere", async (_request, response) => {
    await sessions.endAll(sessionOf(response).accountId);
    sessionCookie.clear(response);
    response.status(204).end();
  });

  const settings = async (response: Response) => {
    const accountId = sessionOf(response).accountId;
    const [stored, identities] = await Promise.all([ledger.getAccountSettings({ accountId }), identitiesOf(response)]);
    response.json({
      logCapture: stored.logCapture ?? dependencies.defaultLogCapture,
      identities: identities.map(identityJson),
      providers: dependencies.providers,
    });
  };
  router.get("/settings", (_request, response) => settings(response));
  router.put("/settings", async (request, response) => {
    const { logCapture } = parseInput(settingsBody, request.body);
    await ledger.setLogCapture({ accountId: sessionOf(response).accountId, logCapture });
    await settings(response);
  });

  const requireAdmin = async (_request: Request, response: Response, next: () => void) => {
    if (!isAdmin(await identitiesOf(response))) throw notAdmin();
    next();
  };
  router.get("/admin/accounts", requireAdmin, async (request, response) => {
    const query = parseInput(adminAccountsQuery, request.query);
    const page = await ledger.listAccounts({ limit: query.limit, cursor: query.cursor ?? "" });
    const needle = query.query?.toLowerCase();
    const accounts = page.accounts.filter(
      (account) => !needle || account.accountId === needle || account.name.toLowerCase().includes(needle),
    );
    response.json({ accounts: accounts.map(accountJson), nextCursor: page.nextCursor });
  });
  router.post("/admin/accounts/:id/credit", requireAdmin, async (request, response) => {
    const body = parseInput(creditBody, request.body);
    const session = sessionOf(response);
    const adjusted = await ledger.adjustCredit({
      accountId: request.params.id as string,
      amountMicros: body.amountMicros,
      reason: body.reason,
      actor: `console:${session.provider}:${session.subject}`,
      idempotencyKey: body.idempotencyKey ?? randomUUID(),
    });
    response.json({ balanceMicros: adjusted.balanceMicros, adjustmentId: adjusted.adjustmentId });
  });
  return requireAdmin;
}
