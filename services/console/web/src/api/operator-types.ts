// Shapes of the console's operator API (docs/console.md, "Operators"): roles, one account's
// whole picture and the audit log.
import type { Account, ApiKey, Identity, LogCapture, OperatorRole } from "./types.js";

export interface AccountStatus {
  disabledAt: string | null;
  group: string | null;
  logCapture: LogCapture | null;
  effectiveLogCapture: LogCapture;
}

export interface OperatorAccountView {
  account: Account;
  status: AccountStatus;
  identities: Identity[];
  keys: ApiKey[];
  groups: string[];
}

export interface RoleGrant {
  grantee: string;
  role: OperatorRole;
  grantedBy: string;
  grantedAt: string;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  actorAccountId: string | null;
  actorRole: OperatorRole;
  action: string;
  accountId: string | null;
  target: string | null;
  before: unknown;
  after: unknown;
}

export interface AuditFilters {
  actor?: string;
  accountId?: string;
  action?: string;
  from?: string;
  to?: string;
}
