import { unaryHandler } from "@gateway/platform";
import type {
  AccountRequest,
  ConsoleServiceServer,
  ListAccountsRequest,
  SetLogCaptureRequest,
} from "@gateway/proto/ledger/v1/console";
import { z } from "zod";
import { listPage } from "../account-api/page.js";
import { findAccount } from "../accounts/find-account.js";
import { findAccountPage } from "../accounts/list-accounts.js";
import { LOG_CAPTURE_LEVELS } from "../accounts/log-capture.js";
import { setLogCapture } from "../accounts/set-log-capture.js";
import { parseInput } from "../admin/parse-input.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { accountIdOf, nextCursor, pageOf } from "./requests.js";
import { accountMessage, settingsMessage } from "./to-proto.js";

const logCaptureInput = z.object({ logCapture: z.enum(LOG_CAPTURE_LEVELS).optional() });

type AccountCalls = Pick<
  ConsoleServiceServer,
  "getAccount" | "getBalance" | "getAccountSettings" | "setLogCapture" | "listAccounts"
>;

/** The account itself: its balance, its settings, and the list of accounts operators page through. */
export function accountCalls({ database, forgetCachedKeys }: ConsoleDependencies): AccountCalls {
  return {
    getAccount: unaryHandler(async (request: AccountRequest) =>
      accountMessage(await findAccount(database, accountIdOf(request.accountId))),
    ),
    getBalance: unaryHandler(async (request: AccountRequest) => {
      const account = await findAccount(database, accountIdOf(request.accountId));
      return { accountId: account.id, balanceMicros: Number(account.balanceMicros) };
    }),
    getAccountSettings: unaryHandler(async (request: AccountRequest) =>
      settingsMessage(await findAccount(database, accountIdOf(request.accountId))),
    ),
    setLogCapture: unaryHandler(async (request: SetLogCaptureRequest) => {
      const accountId = accountIdOf(request.accountId);
      const level = parseInput(logCaptureInput, { logCapture: request.logCapture }).logCapture ?? null;
      return settingsMessage(await setLogCapture(database, forgetCachedKeys, accountId, level));
    }),
    listAccounts: unaryHandler(async (request: ListAccountsRequest) => {
      const { limit, cursor } = pageOf(request);
      const page = listPage(await findAccountPage(database, limit, cursor), limit, (row) => row, accountMessage);
      return { accounts: page.data, nextCursor: nextCursor(page) };
    }),
  };
}
