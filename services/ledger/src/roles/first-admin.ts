import { echoed, GatewayError } from "@gateway/platform";
import type { Actor } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import type { Prisma } from "../generated/prisma/client.js";
import { grantInTransaction } from "./admin-roles.js";

/** The sign-in `gw admin grant --first` offers: the one used last, of an account that is not disabled. */
export interface FirstAdminCandidate {
  grantee: string;
  accountId: string;
  displayName: string | null;
  email: string | null;
  lastSignInAt: Date;
}

const adminExists = (grantees: string[]) =>
  new GatewayError(
    409,
    "invalid_request_error",
    "admin_exists",
    `The console already has an administrator (${grantees.join(", ")}); --first makes only the first. ` +
      "An administrator grants further roles, or name the sign-in: pnpm gw admin grant IDENTITY.",
  );

async function refuseIfAnAdminExists(client: Prisma.TransactionClient | Database): Promise<void> {
  const admins = await client.adminRole.findMany({ where: { role: "admin" }, orderBy: { grantedAt: "asc" }, take: 5 });
  if (admins.length > 0) throw adminExists(admins.map(({ grantee }) => grantee));
}

/** Who would become the first administrator; refused once there is one, and before anyone signed in. */
export async function firstAdminCandidate(database: Database): Promise<FirstAdminCandidate> {
  await refuseIfAnAdminExists(database);
  const latest = await database.signInIdentity.findFirst({
    where: { account: { disabledAt: null } },
    orderBy: [{ lastSignInAt: "desc" }, { createdAt: "desc" }],
  });
  if (!latest) {
    throw new GatewayError(
      404,
      "invalid_request_error",
      "no_sign_in",
      "No one has signed in to the console yet: sign in there first, then run this again.",
    );
  }
  const { provider, subject, accountId, displayName, email, lastSignInAt } = latest;
  return { grantee: `${provider}:${subject}`, accountId, displayName, email, lastSignInAt };
}

/**
 * Makes the sign-in the operator confirmed the first administrator. Two such grants at once
 * are serialised by an advisory lock, so the second finds the first's admin and is refused.
 */
export function grantFirstAdmin(database: Database, actor: Actor, grantee: string) {
  return database.$transaction(async (transaction) => {
    await transaction.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('first-admin', 0))`;
    await refuseIfAnAdminExists(transaction);
    const [identity] = await transaction.$queryRaw<Array<{ account_id: string }>>`
      SELECT account_id FROM ledger.sign_in_identities WHERE provider || ':' || subject = ${grantee} LIMIT 1`;
    if (!identity) {
      throw new GatewayError(
        404,
        "invalid_request_error",
        "no_sign_in",
        `No one has signed in as ${echoed(grantee)}; --first grants a sign-in the console has seen.`,
        "grantee",
      );
    }
    return grantInTransaction(transaction, actor, grantee, "admin");
  });
}
