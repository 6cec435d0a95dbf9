import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { startConsole } from "./console-stack.js";
import { repoRoot, serviceEntry } from "./repo-paths.js";
import { serviceNode } from "./service-node.js";
import { type Echo, type ServiceProcess, startService } from "./service-process.js";

const run = promisify(execFile);

export type StackService = "simulator" | "ledger" | "router" | "edge" | "video" | "console" | "oidcProvider";
// The services every stack runs (the console and its OpenID provider only on request).
type CoreService = Exclude<StackService, "console" | "oidcProvider">;

export interface StackOptions {
  databaseUrl: string;
  redisUrl: string;
  natsUrl: string;
  namespace: string;
  adminToken: string;
  // Seals the channel keys the catalogue store holds; random per start unless given (keep it to reopen them).
  catalogueEncryptionKey?: string;
  host?: string;
  // 0 (the default) lets each service pick a free port and report it.
  ports?: Partial<
    Record<
      | "edge"
      | "edgeAdmin"
      | "router"
      | "routerAdmin"
      | "ledgerGrpc"
      | "ledgerAdmin"
      | "simulator"
      | "video"
      | "videoAdmin"
      | "console"
      | "consoleAdmin"
      | "oidcProvider",
      number
    >
  >;
  // Extra environment for every service (OTLP endpoint, vendor keys, log level).
  env?: NodeJS.ProcessEnv;
  // Environment for one service only, over `env` (its own NATS user, say).
  serviceEnv?: Partial<Record<StackService, NodeJS.ProcessEnv>>;
  // Another build of a service (an earlier dist kept for an A/B bench) instead of its own dist/main.js.
  entries?: Partial<Record<CoreService, string>>;
  echo?: Echo;
  /** Points the video service's S3 storage at the simulator's S3 (`<simulator url>/s3`), whose URL is known only here. */
  videoS3OnSimulator?: boolean;
  /**
   * Also starts the console. With the simulator it signs in through the simulator's GitHub and
   * a local OpenID provider (its own process) and pays through the simulator's WeChat Pay and
   * Alipay; with real vendors, only through the providers `env` configures.
   */
  console?: boolean;
  /**
   * Where vendor calls go: "simulator" (the default) runs the vendor simulator, which answers
   * for every channel without a vendor key; "real" runs none, so only the channels whose keys
   * `env` has are enabled (what production does; pair it with GATEWAY_ENV=production).
   */
  vendors?: "simulator" | "real";
  /**
   * Runs once ledger is ready and before edge starts: what it creates (the demo account)
   * exists before any client can reach the stack.
   */
  beforeEdge?: (ledger: LedgerAdmin) => Promise<void>;
}

export interface LedgerAdmin {
  adminUrl: string;
  createAccount(options?: {
    name?: string;
    group?: string;
    creditYuan?: number;
    apiKey?: string;
    // Whether the account's key may read its request logs (off, as for any new key).
    readLogs?: boolean;
  }): Promise<DemoAccount>;
}

export interface DemoAccount {
  account_id: string;
  api_key: string;
  key_id: string;
}

export interface RunningStack extends LedgerAdmin {
  baseUrl: string;
  /** Router's catalogue admin API (`pnpm gw` model/group/channel/catalogue commands), admin token required. */
  catalogueAdminUrl: string;
  // The router's gRPC address (host:port), for operator tools that ask it directly.
  routerUrl: string;
  // Absent when the stack calls the real vendors.
  simulatorUrl?: string;
  processes: Record<"ledger" | "router" | "edge" | "video", ServiceProcess> &
    Partial<Record<"simulator" | "console" | "oidcProvider", ServiceProcess>>;
  /** The console's address, and the local OpenID provider's issuer, when the stack runs them. */
  consoleUrl?: string;
  oidcIssuer?: string;
  /** Each gateway service's Prometheus endpoint (`/metrics` on its admin port). */
  metricsUrls: Record<"edge" | "router" | "ledger" | "video", string>;
  /** The video service's environment, so tests can start more video workers against the same stack. */
  videoEnv: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** Applies the video service's migrations (schema `video`) the same way. */
export async function migrateVideo(databaseUrl: string): Promise<void> {
  await run(serviceNode, [serviceEntry.videoMigrate], { env: { ...process.env, DATABASE_URL: databaseUrl } });
}

/** Applies the catalogue store's migrations (schema `catalogue`, owned by router) the same way. */
export async function migrateCatalogue(databaseUrl: string): Promise<void> {
  await run(serviceNode, [serviceEntry.routerMigrate], { env: { ...process.env, DATABASE_URL: databaseUrl } });
}

/** Applies ledger's migrations through the same entry point the Kubernetes Job uses. */
export async function migrateLedger(databaseUrl: string): Promise<void> {
  await run(serviceNode, [serviceEntry.ledgerMigrate], { env: { ...process.env, DATABASE_URL: databaseUrl } });
}

async function adminRequest<T>(adminUrl: string, token: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${adminUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const payload = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) throw new Error(`admin ${path} failed: ${payload.error?.message ?? response.status}`);
  return payload;
}

/** Starts simulator (unless on real vendors), ledger, router, video and edge as separate processes, wired to each other. */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const host = options.host ?? "127.0.0.1";
  const ports = options.ports ?? {};
  const common = {
    // A local stack answers from the simulator unless told it is production.
    GATEWAY_ENV: "development",
    ...options.env,
    GATEWAY_NAMESPACE: options.namespace,
    NATS_URL: options.natsUrl,
    LOG_LEVEL: options.env?.LOG_LEVEL ?? "info",
    // Internal gRPC calls are signed with it; random per start unless given.
    GATEWAY_SERVICE_TOKEN_SECRET: options.env?.GATEWAY_SERVICE_TOKEN_SECRET ?? randomBytes(32).toString("hex"),
  };
  // Router seals the catalogue's vendor keys with it; video opens them.
  const catalogueEncryptionKey =
    options.catalogueEncryptionKey ?? options.env?.CATALOGUE_ENCRYPTION_KEY ?? randomBytes(32).toString("base64");
  const envOf = (service: StackService, env: NodeJS.ProcessEnv) => ({ ...env, ...options.serviceEnv?.[service] });
  const entryOf = (service: CoreService) => options.entries?.[service] ?? serviceEntry[service];
  // Every start begun, so a failed stack stops the ones still starting too (a sibling's failure
  // must not leave them running).
  const starting: Promise<ServiceProcess>[] = [];
  const track = (service: Promise<ServiceProcess>) => {
    starting.push(service);
    // Awaited later (or only by the clean-up): its failure is not unhandled meanwhile.
    service.catch(() => undefined);
    return service;
  };
  try {
    const [simulator, ledger] = await Promise.all([
      options.vendors === "real"
        ? undefined
        : track(
            startService(
              "simulator",
              entryOf("simulator"),
              envOf("simulator", { ...common, SIMULATOR_HOST: host, SIMULATOR_PORT: String(ports.simulator ?? 0) }),
              { echo: options.echo },
            ),
          ),
      track(
        startService(
          "ledger",
          entryOf("ledger"),
          envOf("ledger", {
            ...common,
            DATABASE_URL: options.databaseUrl,
            REDIS_URL: options.redisUrl,
            GATEWAY_ADMIN_TOKEN: options.adminToken,
            LEDGER_HOST: host,
            LEDGER_GRPC_PORT: String(ports.ledgerGrpc ?? 0),
            LEDGER_ADMIN_PORT: String(ports.ledgerAdmin ?? 0),
          }),
          { echo: options.echo },
        ),
      ),
    ]);
    const simulatorUrl = simulator && `http://${host}:${simulator.ports.http}`;
    const adminUrl = `http://${host}:${ledger.ports.admin}`;
    const ledgerAdmin: LedgerAdmin = {
      adminUrl,
      createAccount: ({ name = `account-${Date.now()}`, group = "default", creditYuan = 100, apiKey, readLogs } = {}) =>
        adminRequest<DemoAccount>(adminUrl, options.adminToken, "/admin/accounts", {
          name,
          group,
          credit_yuan: creditYuan,
          ...(apiKey && { api_key: apiKey }),
          ...(readLogs && { read_logs: true }),
        }),
    };
    const seeded = options.beforeEdge?.(ledgerAdmin);
    // Awaited before edge starts: its failure is not unhandled meanwhile.
    seeded?.catch(() => undefined);
    // Signing keys not given are random per start: links and callback signatures from an earlier run stop verifying.
    const videoEnv = envOf("video", {
      ...common,
      DATABASE_URL: options.databaseUrl,
      CATALOGUE_ENCRYPTION_KEY: catalogueEncryptionKey,
      ...(simulatorUrl && { SIMULATOR_URL: simulatorUrl }),
      REDIS_URL: options.redisUrl,
      LEDGER_URL: `${host}:${ledger.ports.grpc}`,
      VIDEO_HOST: host,
      VIDEO_GRPC_PORT: String(ports.video ?? 0),
      VIDEO_ADMIN_PORT: String(ports.videoAdmin ?? 0),
      VIDEO_STORAGE_DIR: options.env?.VIDEO_STORAGE_DIR ?? `${repoRoot}.gateway/videos`,
      ...(options.videoS3OnSimulator && simulatorUrl && { VIDEO_S3_ENDPOINT: `${simulatorUrl}/s3` }),
      VIDEO_URL_SIGNING_KEY: options.env?.VIDEO_URL_SIGNING_KEY ?? randomBytes(24).toString("hex"),
      VIDEO_CALLBACK_SIGNING_KEY: options.env?.VIDEO_CALLBACK_SIGNING_KEY ?? randomBytes(24).toString("hex"),
    });
    const videoStarting = track(startService("video", entryOf("video"), videoEnv, { echo: options.echo }));
    const router = await track(
      startService(
        "router",
        entryOf("router"),
        envOf("router", {
          ...common,
          ...(simulatorUrl && { SIMULATOR_URL: simulatorUrl }),
          REDIS_URL: options.redisUrl,
          DATABASE_URL: options.databaseUrl,
          GATEWAY_ADMIN_TOKEN: options.adminToken,
          CATALOGUE_ENCRYPTION_KEY: catalogueEncryptionKey,
          LEDGER_URL: `${host}:${ledger.ports.grpc}`,
          ROUTER_HOST: host,
          ROUTER_PORT: String(ports.router ?? 0),
          ROUTER_ADMIN_PORT: String(ports.routerAdmin ?? 0),
        }),
        { echo: options.echo },
      ),
    );
    const video = await videoStarting;
    await seeded;
    const edge = await track(
      startService(
        "edge",
        entryOf("edge"),
        envOf("edge", {
          ...common,
          EDGE_HOST: host,
          GATEWAY_PORT: String(ports.edge ?? 0),
          EDGE_ADMIN_PORT: String(ports.edgeAdmin ?? 0),
          ROUTER_URL: `${host}:${router.ports.grpc}`,
          LEDGER_URL: `${host}:${ledger.ports.grpc}`,
          VIDEO_URL: `${host}:${video.ports.grpc}`,
          REDIS_URL: options.redisUrl,
        }),
        { echo: options.echo },
      ),
    );
    const consoleParts = options.console
      ? await startConsole({
          host,
          ports,
          env: envOf("console", {
            ...common,
            REDIS_URL: options.redisUrl,
            LEDGER_URL: `${host}:${ledger.ports.grpc}`,
            ROUTER_URL: `${host}:${router.ports.grpc}`,
          }),
          simulatorUrl,
          echo: options.echo,
          track,
        })
      : undefined;
    const processes: RunningStack["processes"] = {
      ...(simulator && { simulator }),
      ledger,
      router,
      edge,
      video,
      ...consoleParts?.processes,
    };
    return {
      ...ledgerAdmin,
      baseUrl: `http://${host}:${edge.ports.http}/v1`,
      catalogueAdminUrl: `http://${host}:${router.ports.admin}/admin`,
      routerUrl: `${host}:${router.ports.grpc}`,
      simulatorUrl,
      processes,
      consoleUrl: consoleParts?.consoleUrl,
      oidcIssuer: consoleParts?.oidcIssuer,
      // Read at each call: a service the supervisor restarted keeps its ports anyway.
      get metricsUrls() {
        const metricsUrl = (process: ServiceProcess) => `http://${host}:${process.ports.admin}/metrics`;
        return {
          edge: metricsUrl(processes.edge),
          router: metricsUrl(processes.router),
          ledger: metricsUrl(processes.ledger),
          video: metricsUrl(processes.video),
        };
      },
      videoEnv,
      // Edge first, so no request arrives at a service that is already gone; a supervisor may have replaced any.
      stop: async () => {
        for (const name of ["console", "oidcProvider", "edge", "router", "video", "ledger", "simulator"] as const) {
          await processes[name]?.stop();
        }
      },
    };
  } catch (error) {
    await Promise.allSettled(starting.map((service) => service.then((process) => process.stop("SIGKILL"))));
    throw error;
  }
}
