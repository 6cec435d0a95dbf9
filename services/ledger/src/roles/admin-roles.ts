import { z } from "zod";
import type { Actor, Role } from "../audit/record-audit.js";
import { recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import type { Prisma } from "../generated/prisma/client.js";

const isUuid = (text: string) => z.uuid().safeParse(text).success;

const roleView = (grant: { grantee: string; role: string; grantedBy: string; grantedAt: Date } | null) =>
  grant && { grantee: grant.grantee, role: grant.role as Role, grantedBy: grant.grantedBy, grantedAt: grant.grantedAt };

/** Grants (or changes) a grantee's role, audited in the same transaction; granting the role it has changes nothing. */
export function grantRole(database: Database, actor: Actor, grantee: string, role: Role) {
  return database.$transaction((transaction) => grantInTransaction(transaction, actor, grantee, role));
}

export async function grantInTransaction(
  transaction: Prisma.TransactionClient,
  actor: Actor,
  grantee: string,
  role: Role,
) {
  const before = roleView(await transaction.adminRole.findUnique({ where: { grantee } }));
  if (before?.role === role) return before;
  const after = roleView(
    await transaction.adminRole.upsert({
      where: { grantee },
      create: { grantee, role, grantedBy: actor.identity },
      update: { role, grantedBy: actor.identity, grantedAt: new Date() },
    }),
  )!;
  await recordAudit(transaction, {
    actor,
    action: "role.grant",
    target: grantee,
    accountId: await accountOf(transaction, grantee),
    before,
    after,
  });
  return after;
}

/** Takes a grantee's role away, audited; revoking a grantee without one changes nothing and answers null. */
export function revokeRole(database: Database, actor: Actor, grantee: string) {
  return database.$transaction(async (transaction) => {
    const before = roleView(await transaction.adminRole.findUnique({ where: { grantee } }));
    if (!before) return null;
    await transaction.adminRole.delete({ where: { grantee } });
    await recordAudit(transaction, {
      actor,
      action: "role.revoke",
      target: grantee,
      accountId: await accountOf(transaction, grantee),
      before,
    });
    return before;
  });
}

export async function listRoles(database: Database) {
  const grants = await database.adminRole.findMany({ orderBy: [{ grantedAt: "asc" }, { grantee: "asc" }] });
  return grants.map((grant) => roleView(grant)!);
}

/** The account a grantee names: an account id, or the account a sign-in `provider:subject` reaches (none before its first sign-in). */
async function accountOf(transaction: Prisma.TransactionClient, grantee: string): Promise<string | undefined> {
  if (isUuid(grantee)) return grantee.toLowerCase();
  // Providers and subjects may hold colons themselves (oidc:google), so the pair is matched whole.
  const [identity] = await transaction.$queryRaw<Array<{ account_id: string }>>`
    SELECT account_id FROM ledger.sign_in_identities WHERE provider || ':' || subject = ${grantee} LIMIT 1`;
  return identity?.account_id;
}

/**
 * The role an account holds: granted to its id or to any of its sign-ins, the stronger one
 * winning; null for a customer.
 */
export async function roleOfAccount(database: Database, accountId: string): Promise<Role | null> {
  const identities = await database.signInIdentity.findMany({
    where: { accountId },
    select: { provider: true, subject: true },
  });
  const grants = await database.adminRole.findMany({
    where: { grantee: { in: [accountId, ...identities.map(({ provider, subject }) => `${provider}:${subject}`)] } },
  });
  if (grants.some((grant) => grant.role === "admin")) return "admin";
  return grants.length > 0 ? "support" : null;
}
