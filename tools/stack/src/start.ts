import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureDatabase, unreachableServers } from "./check-servers.js";
import { devOidcTestUser } from "./dev-oidc-provider.js";
import {
  type DemoAccount,
  type LedgerAdmin,
  migrateCatalogue,
  migrateLedger,
  migrateVideo,
  type StackReplicas,
  startStack,
} from "./stack.js";
import { superviseStack } from "./supervisor.js";
import { describeVendorChannels, type VendorChannels, vendorChannels } from "./vendor-channels.js";

// `pnpm start`: the whole gateway on this machine, on the vendor simulator; with
// GATEWAY_ENV=production, on the real vendors whose keys the environment has.

interface StackFile {
  adminUrl: string;
  adminToken: string;
  // Router's catalogue admin API, and the key sealing the vendor keys the catalogue store holds
  // (kept across starts, or the stored keys could not be opened again).
  catalogueAdminUrl: string;
  catalogueEncryptionKey: string;
  baseUrl: string;
  // For `pnpm gw channel test`, which asks a router directly (every replica's address, comma-separated).
  routerUrl: string;
  serviceTokenSecret: string;
  demo?: DemoAccount;
  // Every process it runs, each replica apart; a replacement's pid replaces its predecessor's.
  processes: { service: string; replica: number; pid: number | undefined; ports: Record<string, number> }[];
}

// In the directory it runs from, where the operator CLI looks for it.
const stateDirectory = join(process.cwd(), ".gateway");
const stateFile = join(stateDirectory, "stack.json");
const env = process.env;
const databaseUrl = env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/gateway";
const postgresAdminUrl = env.POSTGRES_ADMIN_URL ?? new URL("/postgres", databaseUrl).toString();
const redisUrl = env.REDIS_URL ?? "redis://127.0.0.1:6379";
const natsUrl = env.NATS_URL ?? "nats://127.0.0.1:4222";
const numberFrom = (value: string | undefined, fallback: number) => (value ? Number(value) : fallback);
const production = env.GATEWAY_ENV === "production";
const host = env.GATEWAY_HOST ?? "127.0.0.1";
const consolePort = numberFrom(env.CONSOLE_PORT, 8081);
const replicas = numberFrom(env.GATEWAY_REPLICAS, 1);

function previousState(): Partial<StackFile> {
  try {
    return JSON.parse(readFileSync(stateFile, "utf8")) as StackFile;
  } catch {
    return {};
  }
}

// Seeded before edge starts, so the key works from the moment the gateway answers at all.
async function demoAccount(ledger: LedgerAdmin, previous: Partial<StackFile>): Promise<DemoAccount> {
  const wanted = env.GATEWAY_DEMO_KEY;
  if (previous.demo && (!wanted || wanted === previous.demo.api_key)) {
    const check = await fetch(`${ledger.adminUrl}/v1/account/balance`, {
      headers: { authorization: `Bearer ${previous.demo.api_key}` },
    });
    if (check.ok) return previous.demo;
  }
  // The demo key may read its request logs, so the account API's logs can be tried with it.
  return ledger.createAccount({
    name: "demo",
    group: "premium",
    creditYuan: 100,
    readLogs: true,
    ...(wanted && { apiKey: wanted }),
  });
}

/**
 * What production requires that a local run can default: the console's public URL (its own
 * address here) and no readiness delay on stop (no load balancer has to notice). Exits, saying
 * what to set, when the stack could serve nothing.
 */
function localProductionEnv(channels: VendorChannels): NodeJS.ProcessEnv {
  const problems: string[] = [];
  if (channels.enabled.length === 0) {
    const variables = [...new Set(channels.disabled.map((channel) => channel.keyVariable))];
    problems.push(`no vendor key is set, so every channel would be off: set one or more of ${variables.join(", ")}`);
  }
  if (!env.CONSOLE_PUBLIC_URL && consolePort === 0) {
    problems.push("CONSOLE_PUBLIC_URL is required (where browsers reach the console) when CONSOLE_PORT is 0");
  }
  if (problems.length > 0) {
    console.error(`GATEWAY_ENV=production cannot start:\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
  return {
    CONSOLE_PUBLIC_URL: env.CONSOLE_PUBLIC_URL ?? `http://${host.includes(":") ? `[${host}]` : host}:${consolePort}`,
    SHUTDOWN_READINESS_DELAY_MS: env.SHUTDOWN_READINESS_DELAY_MS ?? "0",
  };
}

/** How a production console signs people in, as its environment configures it. */
function productionSignIn(consoleUrl: string): string {
  const publicUrl = (env.CONSOLE_PUBLIC_URL ?? consoleUrl).replace(/\/+$/, "");
  const methods = [
    env.GITHUB_CLIENT_ID && `GitHub (OAuth app callback: ${publicUrl}/api/auth/github/callback)`,
    env.OIDC_ISSUER && `${env.OIDC_DISPLAY_NAME ?? "OpenID Connect"} at ${env.OIDC_ISSUER}`,
  ].filter(Boolean);
  return methods.length > 0
    ? `sign in with ${methods.join(" or ")}`
    : "no sign-in method: set GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET, or OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET";
}

// Every service's warnings and errors reach the console, prefixed with its name; all of its lines with GATEWAY_ECHO_LOGS=1.
const echo = env.GATEWAY_ECHO_LOGS === "1" || "problems";

function processList(replicasOf: StackReplicas): StackFile["processes"] {
  return Object.entries(replicasOf).flatMap(([service, processes]) =>
    processes.map(({ replica, child, ports }) => ({ service, replica, pid: child.pid, ports })),
  );
}

async function main() {
  if (!Number.isInteger(replicas) || replicas < 1) {
    console.error(`GATEWAY_REPLICAS must be a whole number from 1 up, not "${env.GATEWAY_REPLICAS}"`);
    process.exit(1);
  }
  const channels = production ? vendorChannels(env) : undefined;
  const productionEnv = channels && localProductionEnv(channels);
  const problems = await unreachableServers({ postgresAdminUrl, redisUrl, natsUrl });
  if (problems.length > 0) {
    console.error(`The gateway cannot start:\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
  await ensureDatabase(databaseUrl, postgresAdminUrl);
  await migrateLedger(databaseUrl);
  await migrateVideo(databaseUrl);
  await migrateCatalogue(databaseUrl);
  const previous = previousState();
  const adminToken = env.GATEWAY_ADMIN_TOKEN ?? previous.adminToken ?? randomBytes(24).toString("hex");
  const catalogueEncryptionKey =
    env.CATALOGUE_ENCRYPTION_KEY ?? previous.catalogueEncryptionKey ?? randomBytes(32).toString("base64");
  const serviceTokenSecret = env.GATEWAY_SERVICE_TOKEN_SECRET ?? randomBytes(32).toString("hex");
  let demo: DemoAccount | undefined;
  const stack = await startStack({
    databaseUrl,
    redisUrl,
    natsUrl,
    namespace: env.GATEWAY_NAMESPACE ?? "gw",
    adminToken,
    catalogueEncryptionKey,
    host,
    ports: {
      edge: numberFrom(env.GATEWAY_PORT, 8080),
      edgeAdmin: numberFrom(env.EDGE_ADMIN_PORT, 9464),
      router: numberFrom(env.ROUTER_PORT, 50051),
      routerAdmin: numberFrom(env.ROUTER_ADMIN_PORT, 9465),
      ledgerGrpc: numberFrom(env.LEDGER_GRPC_PORT, 50052),
      ledgerAdmin: numberFrom(env.LEDGER_ADMIN_PORT, 8082),
      simulator: numberFrom(env.SIMULATOR_PORT, 8090),
      video: numberFrom(env.VIDEO_GRPC_PORT, 50053),
      videoAdmin: numberFrom(env.VIDEO_ADMIN_PORT, 9466),
      console: consolePort,
      consoleAdmin: numberFrom(env.CONSOLE_ADMIN_PORT, 9467),
      oidcProvider: numberFrom(env.DEV_OIDC_PORT, 8092),
    },
    console: true,
    replicas,
    vendors: production ? "real" : "simulator",
    env: {
      LOG_LEVEL: env.LOG_LEVEL ?? "info",
      ...env,
      ...productionEnv,
      GATEWAY_SERVICE_TOKEN_SECRET: serviceTokenSecret,
    },
    echo,
    beforeEdge: async (ledger) => {
      demo = await demoAccount(ledger, previous);
    },
  });
  if (!demo) throw new Error("the demo account was not seeded");
  mkdirSync(stateDirectory, { recursive: true });
  const state: Omit<StackFile, "processes"> = {
    adminUrl: stack.adminUrl,
    adminToken,
    catalogueAdminUrl: stack.catalogueAdminUrl,
    catalogueEncryptionKey,
    baseUrl: stack.baseUrl,
    routerUrl: stack.routerUrl,
    serviceTokenSecret,
    demo,
  };
  const writeState = () => {
    const file: StackFile = { ...state, processes: processList(stack.replicas) };
    writeFileSync(stateFile, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  };
  // A crashed or stopped replica is replaced, as Kubernetes would; the rest keep serving meanwhile.
  const supervisor = superviseStack(stack, {
    echo,
    say: (line) => console.error(line),
    replaced: () => writeState(),
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await supervisor.stop();
    await stack.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());

  writeState();
  const signIn = channels
    ? productionSignIn(stack.consoleUrl!)
    : `sign in with "GitHub" (the simulator's: press Authorize) or with
             "Local OpenID provider" at ${stack.oidcIssuer} (login ${devOidcTestUser.login}, any password)`;
  const model = channels ? (channels.exampleModel ?? "MODEL") : "gpt-4o-mini";
  console.log(`
${
  channels
    ? `Unified model gateway is running on the real vendors (GATEWAY_ENV=production).\n\n${describeVendorChannels(channels)}`
    : `Unified model gateway is running (vendor simulator at ${stack.simulatorUrl}).`
}

  Base URL:  ${stack.baseUrl}
  Demo key:  ${demo.api_key}   (account ${demo.account_id}, group premium)
  Console:   ${stack.consoleUrl}
             ${signIn}

  curl ${stack.baseUrl}/chat/completions -H "Authorization: Bearer ${demo.api_key}" \\
    -H "Content-Type: application/json" -d '{"model":"${model}","messages":[{"role":"user","content":"Hello"}]}'

  The README's examples read the key from $KEY:
  export KEY=${demo.api_key}

Metrics (Prometheus text): ${Object.values(stack.replicaMetricsUrls).flat().join("  ")}
Operator CLI: pnpm -s gw --help     Stop: Ctrl-C
`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
