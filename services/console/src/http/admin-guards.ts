import type { RequestHandler } from "express";

/**
 * Who may reach an operator route: `staff` (reading, and checking an order at its provider,
 * which only records what the provider says) and `admin` (making or revoking prepaid codes).
 * With admins only a list of identities (CONSOLE_ADMIN_IDENTITIES), both are that check; a
 * support role would pass `staff` only.
 */
export interface AdminGuards {
  staff: RequestHandler;
  admin: RequestHandler;
}
