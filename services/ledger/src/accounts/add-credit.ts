import { type Actor, recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import type { Prisma } from "../generated/prisma/client.js";
import { idempotencyConflict } from "../ledger-errors.js";
import type { CommittedBalance } from "./committed-copies.js";
import { findAccount } from "./find-account.js";

export interface NewCredit {
  accountId: string;
  amountMicros: bigint;
  idempotencyKey: string;
}

/**
 * Credits an account exactly once per idempotency key inside the caller's transaction, so a
 * credit can commit together with what caused it (a paid top-up order, an audited
 * adjustment). A retry with the same key and amount returns the first credit
 * (`replayed: true`) instead of adding the money again.
 */
export async function creditInTransaction(transaction: Prisma.TransactionClient, input: NewCredit) {
  await findAccount(transaction, input.accountId);
  // ON CONFLICT DO NOTHING: a concurrent request with the same key waits for ours, then inserts nothing.
  const [inserted] = await transaction.credit.createManyAndReturn({ data: [input], skipDuplicates: true });
  if (!inserted) {
    const earlier = await transaction.credit.findUniqueOrThrow({ where: { idempotencyKey: input.idempotencyKey } });
    if (earlier.accountId !== input.accountId || earlier.amountMicros !== input.amountMicros) {
      throw idempotencyConflict(input.idempotencyKey);
    }
    const account = await findAccount(transaction, input.accountId);
    return { credit: earlier, balance: committed(account), replayed: true };
  }
  const account = await transaction.account.update({
    where: { id: input.accountId },
    data: { balanceMicros: { increment: input.amountMicros }, balanceVersion: { increment: 1 } },
  });
  return { credit: inserted, balance: committed(account), replayed: false };
}

/**
 * An operator's top-up, exactly once per idempotency key: the credit row, the balance change and
 * the audit log entry commit together.
 */
export function addCredit(database: Database, input: NewCredit, actor: Actor) {
  return database.$transaction(async (transaction) => {
    const credited = await creditInTransaction(transaction, input);
    if (!credited.replayed) {
      await recordAudit(transaction, {
        actor,
        action: "account.credit",
        accountId: input.accountId,
        target: credited.credit.id,
        before: { balanceMicros: credited.balance.micros - input.amountMicros },
        after: { balanceMicros: credited.balance.micros, amountMicros: input.amountMicros },
      });
    }
    return credited;
  });
}

const committed = (account: { balanceMicros: bigint; balanceVersion: bigint }): CommittedBalance => ({
  micros: account.balanceMicros,
  version: account.balanceVersion,
});
