import { userInfo } from "node:os";
import type { AdminConnection } from "./connection.js";

/** Who runs the CLI, for the audit: GATEWAY_ACTOR, else the machine's login. */
function operatorName(): string {
  if (process.env.GATEWAY_ACTOR) return process.env.GATEWAY_ACTOR;
  try {
    return userInfo().username;
  } catch {
    // A uid with no name in /etc/passwd (some containers): the audit says `cli` alone.
    return "";
  }
}

/** The admin API answered with an error; `message` is the API's own error message. */
export class AdminApiError extends Error {
  override name = "AdminApiError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type AdminRequest = (method: "GET" | "POST" | "PUT", path: string, body?: unknown) => Promise<unknown>;

/** A minimal client of the ledger's admin API (paths are relative to /admin). */
export function createAdminClient({ adminUrl, adminToken }: AdminConnection): AdminRequest {
  // Accept the server's base URL with or without the /admin suffix.
  const base = `${adminUrl.replace(/\/+$/, "").replace(/\/admin$/, "")}/admin`;
  return async (method, path, body) => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminToken}`,
          "content-type": "application/json",
          "x-gateway-actor": operatorName(),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new AdminApiError(0, `cannot reach the admin API at ${base}: ${reason}`);
    }
    const payload = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
    if (!response.ok) {
      throw new AdminApiError(
        response.status,
        payload?.error?.message ?? `HTTP ${response.status} from ${base}${path}`,
      );
    }
    return payload;
  };
}
