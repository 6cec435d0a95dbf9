import type { Response, Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/console-error.js";
import { accountJson, identityJson } from "../http/to-json.js";
import type { Ledger } from "../ledger-client.js";
import type { OperatorGuards } from "../sessions/operator-roles.js";
import { sessionOf } from "../sessions/require-session.js";
import type { SessionCookie } from "../sessions/session-cookie.js";
import type { SessionStore } from "../sessions/session-store.js";

export interface AccountRouteDependencies {
  ledger: Ledger;
  sessions: SessionStore;
  sessionCookie: SessionCookie;
  guards: OperatorGuards;
  providers: { id: string; name: string }[];
  defaultLogCapture: string;
}

const settingsBody = z.object({ logCapture: z.enum(["full", "metadata", "off"]) });
/** The session (with the operator role it holds, if any), signing out and the account's settings. */
export function accountRoutes(router: Router, dependencies: AccountRouteDependencies): void {
  const { ledger, sessions, sessionCookie, guards } = dependencies;
  const identitiesOf = async (response: Response) =>
    (await ledger.listIdentities({ accountId: sessionOf(response).accountId })).identities;

  router.get("/session", async (_request, response) => {
    const session = sessionOf(response);
    const [account, identities, role] = await Promise.all([
      ledger.getAccount({ accountId: session.accountId }),
      identitiesOf(response),
      guards.roleOf(response),
    ]);
    response.json({
      account: accountJson(account),
      identities: identities.map(identityJson),
      // Sees the admin pages; `role` says whether as admin or support.
      isAdmin: role !== null,
      role,
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
}
