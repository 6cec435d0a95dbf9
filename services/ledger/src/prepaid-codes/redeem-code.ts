import { notFound } from "@gateway/platform";
import { creditInTransaction } from "../accounts/add-credit.js";
import { findAccount } from "../accounts/find-account.js";
import type { Database } from "../database.js";
import { newOutTradeNo } from "../topups/out-trade-no.js";
import { PREPAID_CODE_METHOD } from "../topups/payment-provider.js";
import { normalizePrepaidCode, prepaidCodeHash } from "./prepaid-code.js";

/** One answer for unknown, used, revoked and expired codes: a guess learns nothing. */
export const codeNotRedeemable = () => notFound("This code is unknown, already used, revoked or expired.");

/**
 * Redeems a code for the account. The claim is one conditional UPDATE (unused, unrevoked,
 * unexpired) in the same transaction as the credit and the paid order that carries it, so of
 * any number of concurrent attempts exactly one finds the row still unused; the others wait
 * for its commit, re-check the condition and update nothing.
 */
export async function redeemCode(database: Database, accountId: string, typed: string, now = new Date()) {
  const normalized = normalizePrepaidCode(typed);
  if (!normalized) throw codeNotRedeemable();
  const codeHash = prepaidCodeHash(normalized);
  return database.$transaction(async (transaction) => {
    await findAccount(transaction, accountId);
    const [claimed] = await transaction.$queryRaw<{ id: string; batch_id: string; amount_micros: bigint }[]>`
      UPDATE ledger.prepaid_codes AS code
         SET redeemed_at = ${now}, redeemed_by = ${accountId}::uuid
        FROM ledger.prepaid_code_batches AS batch
       WHERE code.code_hash = ${codeHash}
         AND batch.id = code.batch_id
         AND code.redeemed_at IS NULL
         AND code.revoked_at IS NULL
         AND (batch.expires_at IS NULL OR batch.expires_at > ${now})
      RETURNING code.id, code.batch_id, batch.amount_micros`;
    if (!claimed) throw codeNotRedeemable();
    // Keyed by the code: even a second claim could not credit it twice.
    const { credit, balance } = await creditInTransaction(transaction, {
      accountId,
      amountMicros: claimed.amount_micros,
      idempotencyKey: `prepaid-code:${claimed.id}`,
    });
    // Born `created` (the orders' trigger insists), paid at once by the code's credit.
    const opened = await transaction.topUpOrder.create({
      data: {
        outTradeNo: newOutTradeNo(),
        accountId,
        provider: PREPAID_CODE_METHOD,
        merchantId: claimed.batch_id,
        amountMicros: claimed.amount_micros,
        createdAt: now,
        expiresAt: new Date(now.getTime() + 1),
      },
    });
    const order = await transaction.topUpOrder.update({
      where: { id: opened.id },
      data: { state: "paid", finishedAt: now, providerTradeId: claimed.id, creditId: credit.id },
    });
    await transaction.prepaidCode.update({ where: { id: claimed.id }, data: { orderId: order.id } });
    return { order, balance };
  });
}
