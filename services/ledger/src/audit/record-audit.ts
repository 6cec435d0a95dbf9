import type { Prisma } from "../generated/prisma/client.js";

export const ROLES = ["admin", "support"] as const;
export type Role = (typeof ROLES)[number];

/** Who acted: the operator's account (none for the CLI's admin token), their sign-in or `cli`, and the role they acted in. */
export interface Actor {
  accountId?: string;
  identity: string;
  role: Role;
}

/** One admin action: a dotted name (`account.disable`, `code.create`), what it touched, and the values before and after. */
export interface AuditEvent {
  actor: Actor;
  action: string;
  /** The account the action concerns, if any. */
  accountId?: string;
  /** The object acted on when it is not the account itself: a grantee, a code batch, an order number. */
  target?: string;
  before?: unknown;
  after?: unknown;
}

// JSON columns take plain JSON: bigints (money) become strings, Dates ISO text.
const toJson = (value: unknown): Prisma.InputJsonValue | undefined =>
  value === undefined
    ? undefined
    : (JSON.parse(
        JSON.stringify(value, (_key, item) => (typeof item === "bigint" ? item.toString() : item)),
      ) as Prisma.InputJsonValue);

/**
 * Appends an admin action to the audit log. Call it with the transaction that makes the
 * change, so the change and its record commit (or roll back) together.
 */
export async function recordAudit(transaction: Prisma.TransactionClient, event: AuditEvent): Promise<void> {
  await transaction.auditEntry.create({
    data: {
      actorAccountId: event.actor.accountId,
      actor: event.actor.identity,
      actorRole: event.actor.role,
      action: event.action,
      accountId: event.accountId,
      target: event.target,
      before: toJson(event.before),
      after: toJson(event.after),
    },
  });
}
