import type { Actor } from "@gateway/proto/ledger/v1/actor";
import type { RequestHandler, Response } from "express";

/**
 * Who may reach an operator route: `staff` (reading, and checking an order at its provider,
 * which only records what the provider says) and `admin` (making or revoking prepaid codes):
 * the operator roles' `requireOperator` and `requireAdmin` (sessions/operator-roles.ts).
 */
export interface AdminGuards {
  staff: RequestHandler;
  admin: RequestHandler;
  /** The operator acting, whom ledger's audit log records with the change. */
  actorOf(response: Response): Actor;
}
