import type { Actor } from "../audit/record-audit.js";

/** Whoever holds the admin token (the `pnpm gw` CLI) acts as an admin; the audit log names them `cli`. */
export const TOKEN_HOLDER: Actor = { identity: "cli", role: "admin" };
