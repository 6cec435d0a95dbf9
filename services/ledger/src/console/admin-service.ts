import { unaryHandler } from "@gateway/platform";
import type {
  AdminServiceServer,
  GrantRoleRequest,
  ListAuditEntriesRequest,
  RevokeRoleRequest,
  SearchAccountsRequest,
  SetAccountDisabledRequest,
  SetAccountGroupRequest,
  SetAccountLogCaptureRequest,
} from "@gateway/proto/ledger/v1/admin";
import type { AccountRequest } from "@gateway/proto/ledger/v1/console";
import { listPage } from "../account-api/page.js";
import { findAccount } from "../accounts/find-account.js";
import { searchAccounts } from "../accounts/search-accounts.js";
import { setAccountDisabled } from "../accounts/set-account-disabled.js";
import { setDefaultGroup } from "../accounts/set-default-group.js";
import { setLogCapture } from "../accounts/set-log-capture.js";
import { parseInput } from "../admin/parse-input.js";
import { findAuditPage } from "../audit/list-audit.js";
import { grantRole, listRoles, revokeRole, roleOfAccount } from "../roles/admin-roles.js";
import { checkOperatorReach } from "../roles/operator-reach.js";
import {
  auditQuery,
  disabledInput,
  grantInput,
  groupInput,
  logCaptureInput,
  revokeInput,
  searchInput,
} from "./admin-requests.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { accountIdOf } from "./requests.js";
import { accountMessage, auditMessage, grantMessage, statusMessage } from "./to-proto.js";

/** AdminService: the console's admin pages. The console checks roles; every change here is audited with its actor. */
export function adminService({
  database,
  announceRevocation,
  forgetCachedKeys,
}: Omit<ConsoleDependencies, "publishBalance" | "accountCaps">): AdminServiceServer {
  return {
    getRole: unaryHandler(async (request: AccountRequest) => ({
      role: (await roleOfAccount(database, accountIdOf(request.accountId))) ?? "",
    })),
    listRoles: unaryHandler(async () => ({ grants: (await listRoles(database)).map(grantMessage) })),
    grantRole: unaryHandler(async (request: GrantRoleRequest) => {
      const { actor, grantee, role } = parseInput(grantInput, request);
      return grantMessage(await grantRole(database, actor, grantee, role));
    }),
    revokeRole: unaryHandler(async (request: RevokeRoleRequest) => {
      const { actor, grantee } = parseInput(revokeInput, request);
      return grantMessage(await revokeRole(database, actor, grantee));
    }),

    searchAccounts: unaryHandler(async (request: SearchAccountsRequest) => {
      const { query, limit, cursor } = parseInput(searchInput, request);
      const rows = await searchAccounts(database, query || undefined, limit, cursor);
      const page = listPage(rows, limit, (row) => row, accountMessage);
      return { accounts: page.data, nextCursor: page.next_cursor ?? "" };
    }),
    getAccountStatus: unaryHandler(async (request: AccountRequest) =>
      statusMessage(await findAccount(database, accountIdOf(request.accountId))),
    ),
    setAccountDisabled: unaryHandler(async (request: SetAccountDisabledRequest) => {
      const accountId = accountIdOf(request.accountId);
      const { actor, disabled, targetIsAdmin } = parseInput(disabledInput, request);
      await checkOperatorReach(
        database,
        { actor, accountId, targetIsAdmin },
        disabled ? "account.disable" : "account.enable",
      );
      return statusMessage(await setAccountDisabled(database, announceRevocation, actor, accountId, disabled));
    }),
    setAccountGroup: unaryHandler(async (request: SetAccountGroupRequest) => {
      const accountId = accountIdOf(request.accountId);
      const { actor, group } = parseInput(groupInput, request);
      return statusMessage(await setDefaultGroup(database, forgetCachedKeys, actor, accountId, group ?? null));
    }),
    setAccountLogCapture: unaryHandler(async (request: SetAccountLogCaptureRequest) => {
      const accountId = accountIdOf(request.accountId);
      const { actor, logCapture } = parseInput(logCaptureInput, request);
      return statusMessage(await setLogCapture(database, forgetCachedKeys, accountId, logCapture ?? null, actor));
    }),

    listAuditEntries: unaryHandler(async (request: ListAuditEntriesRequest) => {
      const query = parseInput(auditQuery, request);
      const filter = { ...query, from: query.fromMs, to: query.toMs, after: query.cursor };
      const rows = await findAuditPage(database, filter);
      const page = listPage(rows, query.limit, (entry) => ({ createdAt: entry.at, id: entry.id }), auditMessage);
      return { entries: page.data, nextCursor: page.next_cursor ?? "" };
    }),
  };
}
