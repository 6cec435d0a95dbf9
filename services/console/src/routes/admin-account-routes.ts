import { randomUUID } from "node:crypto";
import type { AccountStatus } from "@gateway/proto/ledger/v1/admin";
import type { Request, Router } from "express";
import { z } from "zod";
import { notFound, parseInput } from "../http/console-error.js";
import { listFilterOf } from "../http/list-query.js";
import { accountJson, identityJson, isoTime, keyJson, logSummaryJson, orderJson, usageJson } from "../http/to-json.js";
import type { Ledger, LedgerAdmin } from "../ledger-client.js";
import type { OperatorGuards } from "../sessions/operator-roles.js";
import type { SessionStore } from "../sessions/session-store.js";

const isUuid = (text: string) => z.uuid().safeParse(text).success;

export interface AdminAccountDependencies {
  ledger: Ledger;
  ledgerAdmin: LedgerAdmin;
  sessions: SessionStore;
  guards: OperatorGuards;
  keyGroups: string[];
  defaultLogCapture: string;
}

const searchQuery = z.object({
  query: z.string().max(200).default(""),
  cursor: z.string().max(512).default(""),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
const creditBody = z.object({
  amountMicros: z
    .number()
    .int()
    .refine((amount) => amount !== 0, "must not be 0")
    .refine((amount) => Math.abs(amount) <= 1e15, "too large"),
  reason: z.string().trim().min(1).max(500),
  // A retried click with the same key credits once.
  idempotencyKey: z.string().min(8).max(128).optional(),
});
const pageQuery = z.object({ cursor: z.string().max(512).default("") });
const groupBody = z.object({
  group: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .nullable(),
});
const logCaptureBody = z.object({ logCapture: z.enum(["full", "metadata", "off", "default"]) });

/** The account in the path; anything else names no account. */
function accountIdOf(request: Request): string {
  const id = request.params.id as string;
  if (!isUuid(id)) throw notFound("No such account.");
  return id;
}

/**
 * The operators' view of any account (search, its whole picture) and their changes to it:
 * credit, disabling (its keys refused at once, its console sessions ended), its group and log capture.
 */
export function adminAccountRoutes(api: Router, dependencies: AdminAccountDependencies): void {
  const { ledger, ledgerAdmin, sessions, guards, defaultLogCapture } = dependencies;
  const { requireOperator, requireAdmin, actorOf } = guards;
  const statusJson = (status: AccountStatus) => ({
    disabledAt: isoTime(status.disabledAtMs),
    group: status.group ?? null,
    logCapture: status.logCapture ?? null,
    effectiveLogCapture: status.logCapture ?? defaultLogCapture,
  });

  api.get("/admin/accounts", requireOperator, async (request, response) => {
    const query = parseInput(searchQuery, request.query);
    const page = await ledgerAdmin.searchAccounts({
      query: query.query.trim(),
      limit: query.limit,
      cursor: query.cursor,
    });
    response.json({ accounts: page.accounts.map(accountJson), nextCursor: page.nextCursor });
  });

  api.get("/admin/accounts/:id", requireOperator, async (request, response) => {
    const accountId = accountIdOf(request);
    const [account, status, { identities }, { keys }] = await Promise.all([
      ledger.getAccount({ accountId }),
      ledgerAdmin.getAccountStatus({ accountId }),
      ledger.listIdentities({ accountId }),
      ledger.listKeys({ accountId }),
    ]);
    response.json({
      account: accountJson(account),
      status: statusJson(status),
      identities: identities.map(identityJson),
      keys: keys.map(keyJson),
      groups: dependencies.keyGroups,
    });
  });
  api.get("/admin/accounts/:id/topups", requireOperator, async (request, response) => {
    const { cursor } = parseInput(pageQuery, request.query);
    const page = await ledger.listTopUpOrders({ accountId: accountIdOf(request), limit: 20, cursor });
    response.json({ orders: page.orders.map(orderJson), nextCursor: page.nextCursor });
  });
  api.get("/admin/accounts/:id/usage", requireOperator, async (request, response) => {
    const { filter, status } = listFilterOf({ limit: "20", ...request.query });
    const page = await ledger.listUsage({ accountId: accountIdOf(request), filter, status });
    response.json({ records: page.records.map(usageJson), nextCursor: page.nextCursor });
  });
  api.get("/admin/accounts/:id/logs", requireOperator, async (request, response) => {
    const { filter, status } = listFilterOf({ limit: "20", ...request.query });
    const page = await ledger.listRequestLogs({ accountId: accountIdOf(request), filter, status });
    response.json({ logs: page.logs.map(logSummaryJson), nextCursor: page.nextCursor });
  });

  api.post("/admin/accounts/:id/credit", requireOperator, async (request, response) => {
    const body = parseInput(creditBody, request.body);
    const actor = actorOf(response);
    const accountId = accountIdOf(request);
    const adjusted = await ledger.adjustCredit({
      accountId,
      targetIsAdmin: (await guards.roleOfAccount(accountId)) === "admin",
      amountMicros: body.amountMicros,
      reason: body.reason,
      actor: actor.identity,
      actorRole: actor.role,
      actorAccountId: actor.accountId,
      idempotencyKey: body.idempotencyKey ?? randomUUID(),
    });
    response.json({ balanceMicros: adjusted.balanceMicros, adjustmentId: adjusted.adjustmentId });
  });

  for (const [path, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    api.post(`/admin/accounts/:id/${path}`, requireOperator, async (request, response) => {
      const accountId = accountIdOf(request);
      const targetIsAdmin = (await guards.roleOfAccount(accountId)) === "admin";
      const status = await ledgerAdmin.setAccountDisabled({
        actor: actorOf(response),
        accountId,
        disabled,
        targetIsAdmin,
      });
      // Its keys are refused already (ledger told every edge); its people are signed out too.
      if (disabled) await sessions.endAll(accountId);
      response.json(statusJson(status));
    });
  }

  api.put("/admin/accounts/:id/group", requireAdmin, async (request, response) => {
    const { group } = parseInput(groupBody, request.body);
    const accountId = accountIdOf(request);
    const status = await ledgerAdmin.setAccountGroup({
      actor: actorOf(response),
      accountId,
      group: group ?? undefined,
    });
    response.json(statusJson(status));
  });
  api.put("/admin/accounts/:id/log-capture", requireAdmin, async (request, response) => {
    const { logCapture } = parseInput(logCaptureBody, request.body);
    const status = await ledgerAdmin.setAccountLogCapture({
      actor: actorOf(response),
      accountId: accountIdOf(request),
      logCapture: logCapture === "default" ? undefined : logCapture,
    });
    response.json(statusJson(status));
  });
}
