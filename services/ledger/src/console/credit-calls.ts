import { unaryHandler } from "@gateway/platform";
import type { AdjustCreditRequest, ConsoleServiceServer } from "@gateway/proto/ledger/v1/console";
import { adjustCredit } from "../accounts/adjust-credit.js";
import { parseInput } from "../admin/parse-input.js";
import { checkOperatorReach } from "../roles/operator-reach.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { accountIdOf, adjustCreditInput } from "./requests.js";

type CreditCalls = Pick<ConsoleServiceServer, "adjustCredit">;

/** An operator's credit adjustment (audited, idempotent), published at once where router checks balances. */
export function creditCalls({ database, publishBalance }: ConsoleDependencies): CreditCalls {
  return {
    adjustCredit: unaryHandler(async (request: AdjustCreditRequest) => {
      const accountId = accountIdOf(request.accountId);
      const { actor, actorRole, actorAccountId, targetIsAdmin, ...input } = parseInput(adjustCreditInput, request);
      const acting = { identity: actor, role: actorRole, accountId: actorAccountId };
      await checkOperatorReach(database, { actor: acting, accountId, targetIsAdmin }, "account.adjust_credit");
      const { adjustment, balance, replayed } = await adjustCredit(database, { accountId, ...input, actor: acting });
      await publishBalance(accountId, balance);
      return { adjustmentId: adjustment.id, balanceMicros: Number(balance.micros), replayed };
    }),
  };
}
