import { commonConfig, loadConfig, port } from "@gateway/platform";
import { z } from "zod";

const databaseUrlHint = "set it to the Postgres URL, e.g. postgresql://postgres@127.0.0.1:5432/gateway";
const adminTokenHint = "set it to a secret of at least 16 characters (it guards the admin API)";

const configSchema = z.object({
  ...commonConfig,
  DATABASE_URL: z.string({ error: databaseUrlHint }).min(1, databaseUrlHint),
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  LEDGER_HOST: z.string().default("127.0.0.1"),
  // 0 asks the system for any free port; the real one is printed in the "ready" line.
  LEDGER_GRPC_PORT: port(50052),
  LEDGER_ADMIN_PORT: port(8082),
  GATEWAY_ADMIN_TOKEN: z.string({ error: adminTokenHint }).min(16, adminTokenHint),
  // Request logs older than this many days are deleted.
  LEDGER_LOG_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  // What one account may hold at once through the console: keys not revoked, and top-up orders
  // still open for payment (each a row and a provider order; closed ones do not count).
  LEDGER_MAX_KEYS_PER_ACCOUNT: z.coerce.number().int().positive().default(50),
  LEDGER_MAX_OPEN_TOPUPS_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  // Stored Responses API responses are kept this long (30 days, as OpenAI keeps them).
  RESPONSES_RETENTION_SECONDS: z.coerce.number().int().positive().default(2_592_000),
});

export type LedgerConfig = z.infer<typeof configSchema>;

export const loadLedgerConfig = (env: NodeJS.ProcessEnv = process.env): LedgerConfig => loadConfig(configSchema, env);
