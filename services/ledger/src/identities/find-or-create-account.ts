import type { Database } from "../database.js";
import type { SignInIdentityInput } from "./sign-in-identity.js";

/**
 * The account a sign-in reaches. The first sign-in of an identity creates the account (zero
 * balance, named after the person) and the identity together; two first sign-ins at once
 * make one account, because the loser's insert finds the identity taken and its whole
 * transaction, account included, is rolled back before it looks again. Every sign-in stamps
 * the identity's last use, which `gw admin grant --first` goes by.
 */
export async function findOrCreateAccountByIdentity(database: Database, identity: SignInIdentityInput) {
  const where = { provider_subject: { provider: identity.provider, subject: identity.subject } };
  for (;;) {
    const existing = await database.signInIdentity.findUnique({ where, include: { account: true } });
    if (existing) {
      await database.signInIdentity.update({ where, data: { lastSignInAt: new Date() } });
      return { account: existing.account, created: false };
    }
    const created = await database
      .$transaction(async (transaction) => {
        const account = await transaction.account.create({
          data: { name: identity.displayName ?? identity.email ?? `${identity.provider}:${identity.subject}` },
        });
        const { count } = await transaction.signInIdentity.createMany({
          data: [{ ...identity, accountId: account.id }],
          skipDuplicates: true,
        });
        if (count === 0) throw new IdentityTaken();
        return account;
      })
      .catch((error: unknown) => {
        if (error instanceof IdentityTaken) return undefined;
        throw error;
      });
    if (created) return { account: created, created: true };
  }
}

class IdentityTaken extends Error {}
