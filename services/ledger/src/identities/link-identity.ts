import { findAccount } from "../accounts/find-account.js";
import type { Database } from "../database.js";
import { identityLinkedElsewhere } from "../ledger-errors.js";
import type { SignInIdentityInput } from "./sign-in-identity.js";

/**
 * Links another sign-in to an account. Linking one already linked to this account answers
 * it again; one linked to any other account is refused (409), so a sign-in reaches one account only.
 */
export async function linkIdentity(database: Database, accountId: string, identity: SignInIdentityInput) {
  await findAccount(database, accountId);
  await database.signInIdentity.createMany({ data: [{ ...identity, accountId }], skipDuplicates: true });
  const linked = await database.signInIdentity.findUniqueOrThrow({
    where: { provider_subject: { provider: identity.provider, subject: identity.subject } },
  });
  if (linked.accountId !== accountId) throw identityLinkedElsewhere();
  return linked;
}

/** The account's sign-ins, oldest first. */
export function listIdentities(database: Database, accountId: string) {
  return database.signInIdentity.findMany({ where: { accountId }, orderBy: { createdAt: "asc" } });
}
