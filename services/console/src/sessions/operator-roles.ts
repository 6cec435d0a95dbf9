import type { Actor } from "@gateway/proto/ledger/v1/actor";
import type { Request, RequestHandler, Response } from "express";
import { ConsoleError, notAdmin } from "../http/console-error.js";
import type { Ledger, LedgerAdmin } from "../ledger-client.js";
import { sessionOf } from "./require-session.js";

export type OperatorRole = "admin" | "support";

export const supportRefused = () =>
  new ConsoleError(403, "admin_only", "Only an administrator may do this; the support role cannot.");

export interface OperatorGuards {
  /** The session's role, or null for a customer. */
  roleOf(response: Response): Promise<OperatorRole | null>;
  /** Any account's role, the bootstrap list's admins included. */
  roleOfAccount(accountId: string): Promise<OperatorRole | null>;
  /** Admin or support (reads, credit, disabling), else 403. */
  requireOperator: RequestHandler;
  /** Admin only, else 403 (support too). */
  requireAdmin: RequestHandler;
  /** The operator acting in this request, as the audit log names them. */
  actorOf(response: Response): Actor;
}

/**
 * Roles come from ledger (granted at run time, `pnpm gw admin grant` or the console) and, as a
 * bootstrap, from CONSOLE_ADMIN_IDENTITIES: a session signed in with a listed identity, or whose
 * account has one, is an admin. Looked up on every request, so a revoked role ends at once.
 */
export function operatorGuards(ledger: Ledger, ledgerAdmin: LedgerAdmin, adminIdentities: string[]): OperatorGuards {
  const roleOfAccount = async (accountId: string): Promise<OperatorRole | null> => {
    const [{ role }, { identities }] = await Promise.all([
      ledgerAdmin.getRole({ accountId }),
      adminIdentities.length > 0 ? ledger.listIdentities({ accountId }) : { identities: [] },
    ]);
    if (identities.some(({ provider, subject }) => adminIdentities.includes(`${provider}:${subject}`))) return "admin";
    return role === "admin" || role === "support" ? role : null;
  };
  const lookUp = (response: Response) => roleOfAccount(sessionOf(response).accountId);
  const roleOf = async (response: Response) => {
    if (response.locals.role === undefined) response.locals.role = await lookUp(response);
    return response.locals.role as OperatorRole | null;
  };
  const guard =
    (allowed: (role: OperatorRole | null) => boolean, refusal: (role: OperatorRole | null) => ConsoleError) =>
    async (_request: Request, response: Response, next: () => void) => {
      const role = await roleOf(response);
      if (!allowed(role)) throw refusal(role);
      next();
    };
  return {
    roleOf,
    roleOfAccount,
    requireOperator: guard((role) => role !== null, notAdmin),
    requireAdmin: guard(
      (role) => role === "admin",
      (role) => (role === "support" ? supportRefused() : notAdmin()),
    ),
    actorOf: (response) => {
      const session = sessionOf(response);
      return {
        accountId: session.accountId,
        identity: `${session.provider}:${session.subject}`,
        role: response.locals.role as string,
      };
    },
  };
}
