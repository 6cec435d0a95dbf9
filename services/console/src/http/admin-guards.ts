import type { RequestHandler } from "express";

/**
 * Who may reach an operator route: `staff` (reading, and checking an order at its provider,
 * which only records what the provider says) and `admin` (making or revoking prepaid codes):
 * the operator roles' `requireOperator` and `requireAdmin` (sessions/operator-roles.ts).
 */
export interface AdminGuards {
  staff: RequestHandler;
  admin: RequestHandler;
}
