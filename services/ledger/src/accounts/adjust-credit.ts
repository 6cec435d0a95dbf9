import { type Actor, recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { adjustmentBelowZero } from "../ledger-errors.js";
import { creditInTransaction } from "./add-credit.js";

export interface CreditAdjustmentInput {
  accountId: string;
  /** Positive adds, negative takes back. */
  amountMicros: bigint;
  reason: string;
  actor: Actor;
  idempotencyKey: string;
}

/**
 * An operator's change to a balance: the credit, its adjustment row (who, why) and its audit
 * log entry commit together,
 * once per idempotency key. Taking back more than the balance holds is refused.
 */
export function adjustCredit(database: Database, input: CreditAdjustmentInput) {
  return database.$transaction(async (transaction) => {
    // Locked, so a concurrent debit cannot slip between the check and the credit.
    const [account] = await transaction.$queryRaw<Array<{ balance_micros: bigint }>>`
      SELECT balance_micros FROM ledger.accounts WHERE id = ${input.accountId}::uuid FOR UPDATE`;
    const { credit, balance, replayed } = await creditInTransaction(transaction, {
      accountId: input.accountId,
      amountMicros: input.amountMicros,
      idempotencyKey: `adjustment:${input.idempotencyKey}`,
    });
    if (replayed) {
      const adjustment = await transaction.creditAdjustment.findUniqueOrThrow({ where: { creditId: credit.id } });
      return { adjustment, balance, replayed };
    }
    if (account && account.balance_micros + input.amountMicros < 0n) throw adjustmentBelowZero();
    const adjustment = await transaction.creditAdjustment.create({
      data: {
        creditId: credit.id,
        accountId: input.accountId,
        amountMicros: input.amountMicros,
        reason: input.reason,
        actor: input.actor.identity,
      },
    });
    await recordAudit(transaction, {
      actor: input.actor,
      action: "account.adjust_credit",
      accountId: input.accountId,
      target: adjustment.id,
      before: { balanceMicros: account?.balance_micros },
      after: { balanceMicros: balance.micros, amountMicros: input.amountMicros, reason: input.reason },
    });
    return { adjustment, balance, replayed };
  });
}
