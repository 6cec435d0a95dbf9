import type { RoleGrant } from "@gateway/proto/ledger/v1/admin";
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/console-error.js";
import { isoTime } from "../http/to-json.js";
import type { LedgerAdmin } from "../ledger-client.js";
import type { OperatorGuards } from "../sessions/operator-roles.js";

const grantBody = z.object({ grantee: z.string().trim().min(3).max(300), role: z.enum(["admin", "support"]) });
const revokeBody = z.object({ grantee: z.string().trim().min(3).max(300) });

const grantJson = (grant: RoleGrant) => ({
  grantee: grant.grantee,
  role: grant.role,
  grantedBy: grant.grantedBy,
  grantedAt: isoTime(grant.grantedAtMs),
});

/** Operators' roles: every operator reads them, only an admin grants or revokes. */
export function adminRoleRoutes(api: Router, ledgerAdmin: LedgerAdmin, guards: OperatorGuards): void {
  api.get("/admin/roles", guards.requireOperator, async (_request, response) => {
    const { grants } = await ledgerAdmin.listRoles({});
    response.json({ grants: grants.map(grantJson) });
  });
  api.post("/admin/roles", guards.requireAdmin, async (request, response) => {
    const { grantee, role } = parseInput(grantBody, request.body);
    response.json(grantJson(await ledgerAdmin.grantRole({ actor: guards.actorOf(response), grantee, role })));
  });
  api.post("/admin/roles/revoke", guards.requireAdmin, async (request, response) => {
    const { grantee } = parseInput(revokeBody, request.body);
    const revoked = await ledgerAdmin.revokeRole({ actor: guards.actorOf(response), grantee });
    response.json({ grantee, revoked: revoked.grantee ? grantJson(revoked) : null });
  });
}
