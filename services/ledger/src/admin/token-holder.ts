import type { Request } from "express";
import { z } from "zod";
import type { Actor } from "../audit/record-audit.js";

// The name a CLI user goes by (GATEWAY_ACTOR, else their login on the machine).
const operatorName = z
  .string()
  .trim()
  .regex(/^[\w.@-]{1,64}$/);

/**
 * Whoever holds the admin token (the `pnpm gw` CLI) acts as an admin. The audit names them
 * `cli:<name>` with the name the CLI sends in `x-gateway-actor`, else `cli`: the token proves
 * the right to act, the name only who said they did.
 */
export function tokenHolder(request: Request): Actor {
  const named = operatorName.safeParse(request.headers["x-gateway-actor"]);
  return { identity: named.success ? `cli:${named.data}` : "cli", role: "admin" };
}
