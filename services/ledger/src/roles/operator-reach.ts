import { GatewayError } from "@gateway/platform";
import { type Actor, recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { roleOfAccount } from "./admin-roles.js";

export interface Reach {
  actor: Actor;
  /** The account the operator would change. */
  accountId: string;
  /** The console knows it as an administrator's from its bootstrap list, which ledger does not hold. */
  targetIsAdmin: boolean;
}

/**
 * Support acts on customers' accounts, never on its own nor an administrator's: a role that
 * could credit itself or lock its admins out would be the admin role. A refusal is audited in a
 * write of its own, since the refused change has no transaction to share.
 */
export async function checkOperatorReach(database: Database, reach: Reach, action: string): Promise<void> {
  const { actor, accountId } = reach;
  if (actor.role !== "support") return;
  const own = actor.accountId === accountId;
  if (!own && !reach.targetIsAdmin && (await roleOfAccount(database, accountId)) !== "admin") return;
  const reason = own ? "its own account" : "an administrator's account";
  await database.$transaction((transaction) =>
    recordAudit(transaction, { actor, action: `${action}.refused`, accountId, after: { reason } }),
  );
  throw new GatewayError(
    403,
    "invalid_request_error",
    "admin_only",
    `The support role cannot change ${reason}; only an administrator may.`,
  );
}
