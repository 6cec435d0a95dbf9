import { z } from "zod";
import type { Position } from "../account-api/cursor.js";
import type { Database } from "../database.js";
import type { Prisma } from "../generated/prisma/client.js";

const isUuid = (text: string) => z.uuid().safeParse(text).success;

export interface AuditFilter {
  /** The actor's sign-in (`github:123`, `cli`) or account id. */
  actor?: string;
  accountId?: string;
  /** An action name, or a prefix ending in a dot (`account.`). */
  action?: string;
  from?: Date;
  to?: Date;
  limit: number;
  after?: Position;
}

/** Audit entries newest first, matching every filter given; reads `limit + 1` rows (see account-api/page.ts). */
export function findAuditPage(database: Database, filter: AuditFilter) {
  const { actor, accountId, action, from, to, after } = filter;
  const where: Prisma.AuditEntryWhereInput = {
    AND: [
      actor ? (isUuid(actor) ? { actorAccountId: actor.toLowerCase() } : { actor }) : {},
      accountId ? { accountId } : {},
      action ? (action.endsWith(".") ? { action: { startsWith: action } } : { action }) : {},
      from || to ? { at: { gte: from, lt: to } } : {},
      after ? { OR: [{ at: { lt: after.createdAt } }, { at: after.createdAt, id: { lt: after.id } }] } : {},
    ],
  };
  return database.auditEntry.findMany({ where, orderBy: [{ at: "desc" }, { id: "desc" }], take: filter.limit + 1 });
}
