import type { AuditEntry, ListAuditEntriesRequest } from "@gateway/proto/ledger/v1/admin";
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/console-error.js";
import { streamCsv } from "../http/csv.js";
import { isoTime } from "../http/to-json.js";
import type { LedgerAdmin } from "../ledger-client.js";
import type { OperatorGuards } from "../sessions/operator-roles.js";

const time = z.iso.datetime({ offset: true }).transform((text) => Date.parse(text));
const auditQuery = z.object({
  actor: z.string().trim().max(300).default(""),
  accountId: z.union([z.literal(""), z.uuid()]).default(""),
  action: z.string().trim().max(64).default(""),
  from: time.optional(),
  to: time.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).default(""),
});

function filterOf(query: unknown): ListAuditEntriesRequest {
  const parsed = parseInput(auditQuery, query);
  return { ...parsed, fromMs: parsed.from ?? 0, toMs: parsed.to ?? 0 };
}

const parsedJson = (text: string): unknown => (text ? JSON.parse(text) : null);
const auditJson = (entry: AuditEntry) => ({
  id: entry.id,
  at: isoTime(entry.atMs),
  actor: entry.actor,
  actorAccountId: entry.actorAccountId || null,
  actorRole: entry.actorRole,
  action: entry.action,
  accountId: entry.accountId || null,
  target: entry.target || null,
  before: parsedJson(entry.beforeJson),
  after: parsedJson(entry.afterJson),
});

const csvColumns = ["at", "actor", "actorRole", "action", "accountId", "target", "before", "after"] as const;

/** The audit log for every operator: a page, or everything that matches as CSV. */
export function auditRoutes(api: Router, ledgerAdmin: LedgerAdmin, guards: OperatorGuards): void {
  api.get("/admin/audit", guards.requireOperator, async (request, response) => {
    const page = await ledgerAdmin.listAuditEntries(filterOf(request.query));
    response.json({ entries: page.entries.map(auditJson), nextCursor: page.nextCursor });
  });
  api.get("/admin/audit.csv", guards.requireOperator, async (request, response) => {
    const filter = filterOf({ ...request.query, limit: 500 });
    await streamCsv(response, "audit.csv", csvColumns, async (cursor) => {
      const page = await ledgerAdmin.listAuditEntries({ ...filter, cursor });
      const rows = page.entries.map((entry) => ({
        ...auditJson(entry),
        before: entry.beforeJson,
        after: entry.afterJson,
      }));
      return { rows, nextCursor: page.nextCursor };
    });
  });
}
