import type { Router } from "express";
import { z } from "zod";
import { ROLES } from "../../audit/record-audit.js";
import { granteeInput } from "../../console/admin-requests.js";
import { grantRole, listRoles, revokeRole } from "../../roles/admin-roles.js";
import { firstAdminCandidate, grantFirstAdmin } from "../../roles/first-admin.js";
import type { AdminDependencies } from "../dependencies.js";
import { parseInput } from "../parse-input.js";
import { tokenHolder } from "../token-holder.js";

const grantBody = z.object({ grantee: granteeInput, role: z.enum(ROLES).default("admin") });
const revokeBody = z.object({ grantee: granteeInput });
const firstBody = z.object({ grantee: granteeInput });

const roleJson = (grant: { grantee: string; role: string; grantedBy: string; grantedAt: Date }) => ({
  grantee: grant.grantee,
  role: grant.role,
  granted_by: grant.grantedBy,
  granted_at: grant.grantedAt.toISOString(),
});

/** Operators' roles: how the first console admin is made (`pnpm gw admin grant`). */
export function roleRoutes(router: Router, { database }: AdminDependencies): void {
  router.get("/roles", async (_request, response) => {
    response.json({ object: "list", data: (await listRoles(database)).map(roleJson) });
  });
  router.post("/roles", async (request, response) => {
    const { grantee, role } = parseInput(grantBody, request.body);
    response.json(roleJson(await grantRole(database, tokenHolder(request), grantee, role)));
  });
  /** The sign-in `gw admin grant --first` would make the first admin: the one used last (409 once an admin exists). */
  router.get("/roles/first", async (_request, response) => {
    const candidate = await firstAdminCandidate(database);
    response.json({
      grantee: candidate.grantee,
      account_id: candidate.accountId,
      display_name: candidate.displayName,
      email: candidate.email,
      last_sign_in_at: candidate.lastSignInAt.toISOString(),
    });
  });
  /** Makes the sign-in the operator confirmed the first admin, unless an admin exists by then. */
  router.post("/roles/first", async (request, response) => {
    const { grantee } = parseInput(firstBody, request.body);
    response.json(roleJson(await grantFirstAdmin(database, tokenHolder(request), grantee)));
  });
  /** Answers the grant that was revoked, or `revoked: null` when the grantee had none. */
  router.post("/roles/revoke", async (request, response) => {
    const { grantee } = parseInput(revokeBody, request.body);
    const revoked = await revokeRole(database, tokenHolder(request), grantee);
    response.json({ grantee, revoked: revoked && roleJson(revoked) });
  });
}
