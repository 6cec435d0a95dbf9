import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface AdminConnection {
  adminUrl: string;
  adminToken: string;
  // Router's catalogue admin API (its admin port), guarded by the same admin token.
  catalogueUrl?: string;
}

/** Written by the stack launcher (`pnpm start`) so the CLI finds a local stack unaided. */
const STACK_FILE = join(".gateway", "stack.json");

function readStackFile(directory: string): Partial<AdminConnection> {
  try {
    const parsed = JSON.parse(readFileSync(join(directory, STACK_FILE), "utf8")) as Record<string, unknown>;
    return {
      adminUrl: typeof parsed.adminUrl === "string" ? parsed.adminUrl : undefined,
      adminToken: typeof parsed.adminToken === "string" ? parsed.adminToken : undefined,
      catalogueUrl: typeof parsed.catalogueAdminUrl === "string" ? parsed.catalogueAdminUrl : undefined,
    } as Partial<AdminConnection>;
  } catch {
    return {};
  }
}

/** Where the admin APIs are: the environment first, then .gateway/stack.json in `directory`. */
export function resolveConnection(env: NodeJS.ProcessEnv, directory: string): AdminConnection {
  const stack =
    env.GATEWAY_ADMIN_URL && env.GATEWAY_ADMIN_TOKEN && env.GATEWAY_CATALOGUE_URL ? {} : readStackFile(directory);
  const adminUrl = env.GATEWAY_ADMIN_URL || stack.adminUrl;
  const adminToken = env.GATEWAY_ADMIN_TOKEN || stack.adminToken;
  if (!adminUrl || !adminToken) {
    throw new Error(
      `cannot find the admin API: set GATEWAY_ADMIN_URL and GATEWAY_ADMIN_TOKEN, or run from the directory where \`pnpm start\` wrote ${STACK_FILE}`,
    );
  }
  return { adminUrl, adminToken, catalogueUrl: env.GATEWAY_CATALOGUE_URL || stack.catalogueUrl };
}
