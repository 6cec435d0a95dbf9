import type { Response } from "express";
import { logReadingDenied } from "../ledger-errors.js";

// The contract between the account API's authentication (an API key today, a console
// session later) and its routes: whichever middleware runs first names the account here.

export interface AuthenticatedAccount {
  accountId: string;
  // Request logs hold people's prompts: only sign-ins allowed to (a key made with read_logs) see them.
  canReadLogs: boolean;
}

const LOCALS_KEY = "authenticatedAccount";

export function setAuthenticatedAccount(response: Response, account: AuthenticatedAccount): void {
  response.locals[LOCALS_KEY] = account;
}

function authenticatedAccount(response: Response): AuthenticatedAccount {
  const account = response.locals[LOCALS_KEY] as AuthenticatedAccount | undefined;
  // A route mounted without authentication is a programming error, never an open door.
  if (!account) throw new Error("account API route reached without an authenticated account");
  return account;
}

/** The signed-in account; every query of the account API is filtered by it. */
export const authenticatedAccountId = (response: Response): string => authenticatedAccount(response).accountId;

/** The signed-in account, for a route that shows its request logs: a 403 for a sign-in not allowed to read them. */
export function logReadingAccountId(response: Response): string {
  const account = authenticatedAccount(response);
  if (!account.canReadLogs) throw logReadingDenied();
  return account.accountId;
}
