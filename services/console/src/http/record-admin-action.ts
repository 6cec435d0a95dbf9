import type { Logger } from "@gateway/shared";

/** One admin action: who did what to what, with the values before and after where there are any. */
export interface AdminAction {
  actor: string;
  action: string;
  target: string;
  before?: unknown;
  after?: unknown;
}

/**
 * Where the prepaid-code, order and overview routes report what an admin did. It writes the
 * console's log; the audit log (ledger's, issue 22) is the place it is meant to reach.
 */
export async function recordAdminAction(logger: Logger, action: AdminAction): Promise<void> {
  logger.info({ adminAction: action }, "admin action");
}
