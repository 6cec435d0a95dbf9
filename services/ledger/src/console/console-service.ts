import type { ConsoleServiceServer } from "@gateway/proto/ledger/v1/console";
import { accountCalls } from "./account-calls.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { creditCalls } from "./credit-calls.js";
import { identityCalls } from "./identity-calls.js";
import { keyCalls } from "./key-calls.js";
import { paymentCalls } from "./payment-calls.js";
import { topUpOrderCalls } from "./top-up-order-calls.js";
import { usageCalls } from "./usage-calls.js";

/**
 * ConsoleService: the console's calls, each on the account it names (the console has signed
 * that person in), gathered from one module per area.
 */
export function consoleService(dependencies: ConsoleDependencies): ConsoleServiceServer {
  return {
    ...identityCalls(dependencies),
    ...topUpOrderCalls(dependencies),
    ...paymentCalls(dependencies),
    ...accountCalls(dependencies),
    ...keyCalls(dependencies),
    ...usageCalls(dependencies),
    ...creditCalls(dependencies),
  };
}
