import type { Response } from "express";

// The contract between the account API's authentication (an API key today, a console
// session later) and its routes: whichever middleware runs first names the account here.

export interface AuthenticatedAccount {
  accountId: string;
}

const LOCALS_KEY = "authenticatedAccount";

export function setAuthenticatedAccount(response: Response, account: AuthenticatedAccount): void {
  response.locals[LOCALS_KEY] = account;
}

/** The signed-in account; every query of the account API is filtered by it. */
export function authenticatedAccountId(response: Response): string {
  const account = response.locals[LOCALS_KEY] as AuthenticatedAccount | undefined;
  // A route mounted without authentication is a programming error, never an open door.
  if (!account) throw new Error("account API route reached without an authenticated account");
  return account.accountId;
}
