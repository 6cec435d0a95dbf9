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
  /**
   * How many replicas of ledger, router, video and the console run (1, the default), against the
   * same Postgres, Redis and NATS: replica 0 on the ports above, the others on free ones. Edge
   * reaches every router, ledger and video; routers, video and the console every ledger.
   */
  replicas?: number;
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
  // Every router's gRPC address (host:port, comma-separated), for operator tools that ask one directly.
  routerUrl: string;
  // Absent when the stack calls the real vendors.
  simulatorUrl?: string;
  /** Replica 0 of each service: a view of `replicas`, so replacing one here replaces it there. */
  processes: Record<"ledger" | "router" | "edge" | "video", ServiceProcess> &
    Partial<Record<"simulator" | "console" | "oidcProvider", ServiceProcess>>;
  /**
   * Every process of each service, indexed by replica (`ServiceProcess.replica`); a supervisor
   * puts a replacement at its predecessor's index, on its ports.
   */
  replicas: StackReplicas;
  /** The console's address, and the local OpenID provider's issuer, when the stack runs them. */
  consoleUrl?: string;
  oidcIssuer?: string;
  /** Each gateway service's Prometheus endpoint (`/metrics` on its admin port). */
  metricsUrls: Record<"edge" | "router" | "ledger" | "video", string>;
  /** The same for every replica, indexed as `replicas`. */
  replicaMetricsUrls: Record<"edge" | "router" | "ledger" | "video", string[]>;
  /** The video service's environment, so tests can start more video workers against the same stack. */
  videoEnv: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export type StackReplicas = Record<"ledger" | "router" | "edge" | "video", ServiceProcess[]> &
  Partial<Record<"simulator" | "console" | "oidcProvider", ServiceProcess[]>>;

/** Replica 0 of each service, read and written through to `replicas`. */
function firstReplicas(replicas: StackReplicas): RunningStack["processes"] {
  const view = {};
  for (const name of Object.keys(replicas) as (keyof StackReplicas)[]) {
    Object.defineProperty(view, name, {
      enumerable: true,
      get: () => replicas[name]![0],
      set: (process: ServiceProcess) => {
        replicas[name]![0] = process;
      },
    });
  }
  return view as RunningStack["processes"];
}

/**
 * A replica's own usage spool, as each pod has its own volume: its replacement recovers its
 * journal, and never a live sibling's. Replica 0 keeps the service's usual directory.
 */
function ownSpool(env: NodeJS.ProcessEnv, service: "router" | "video", replica: number): NodeJS.ProcessEnv {
  if (replica === 0) return env;
  const usual = env.USAGE_SPOOL_DIR || `${repoRoot}.gateway/spool/${env.GATEWAY_NAMESPACE}/${service}`;
  return { ...env, USAGE_SPOOL_DIR: `${usual}-${replica}` };
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
  const replicaCount = options.replicas ?? 1;
  // Starts every replica of a service at once; `portOf` gives replica 0 the port asked for, the others a free one.
  const startReplicas = (start: (replica: number, portOf: (port?: number) => string) => Promise<ServiceProcess>) =>
    Promise.all(
      Array.from({ length: replicaCount }, (_, replica) =>
        track(start(replica, (port) => String(replica === 0 ? (port ?? 0) : 0))),
      ),
    );
  // A gRPC address list of every replica, which the clients balance over.
  const grpcHost = host.includes(":") ? `[${host}]` : host;
  const grpcAddresses = (replicas: ServiceProcess[]) =>
    replicas.map((replica) => `${grpcHost}:${replica.ports.grpc}`).join(",");
  try {
    const [simulator, ledgers] = await Promise.all([
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
      startReplicas((replica, portOf) =>
        startService(
          "ledger",
          entryOf("ledger"),
          envOf("ledger", {
            ...common,
            DATABASE_URL: options.databaseUrl,
            REDIS_URL: options.redisUrl,
            GATEWAY_ADMIN_TOKEN: options.adminToken,
            LEDGER_HOST: host,
            LEDGER_GRPC_PORT: portOf(ports.ledgerGrpc),
            LEDGER_ADMIN_PORT: portOf(ports.ledgerAdmin),
          }),
          { echo: options.echo, replica },
        ),
      ),
    ]);
    const ledger = ledgers[0]!;
    const ledgerUrl = grpcAddresses(ledgers);
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
      LEDGER_URL: ledgerUrl,
      VIDEO_HOST: host,
      VIDEO_GRPC_PORT: String(ports.video ?? 0),
      VIDEO_ADMIN_PORT: String(ports.videoAdmin ?? 0),
      VIDEO_STORAGE_DIR: options.env?.VIDEO_STORAGE_DIR ?? `${repoRoot}.gateway/videos`,
      ...(options.videoS3OnSimulator && simulatorUrl && { VIDEO_S3_ENDPOINT: `${simulatorUrl}/s3` }),
      VIDEO_URL_SIGNING_KEY: options.env?.VIDEO_URL_SIGNING_KEY ?? randomBytes(24).toString("hex"),
      VIDEO_CALLBACK_SIGNING_KEY: options.env?.VIDEO_CALLBACK_SIGNING_KEY ?? randomBytes(24).toString("hex"),
    });
    const videosStarting = startReplicas((replica, portOf) =>
      startService(
        "video",
        entryOf("video"),
        ownSpool(
          { ...videoEnv, VIDEO_GRPC_PORT: portOf(ports.video), VIDEO_ADMIN_PORT: portOf(ports.videoAdmin) },
          "video",
          replica,
        ),
        { echo: options.echo, replica },
      ),
    );
    // Awaited after the routers: its failure is not unhandled meanwhile.
    videosStarting.catch(() => undefined);
    const routers = await startReplicas((replica, portOf) =>
      startService(
        "router",
        entryOf("router"),
        ownSpool(
          envOf("router", {
            ...common,
            ...(simulatorUrl && { SIMULATOR_URL: simulatorUrl }),
            REDIS_URL: options.redisUrl,
            DATABASE_URL: options.databaseUrl,
            GATEWAY_ADMIN_TOKEN: options.adminToken,
            CATALOGUE_ENCRYPTION_KEY: catalogueEncryptionKey,
            LEDGER_URL: ledgerUrl,
            ROUTER_HOST: host,
            ROUTER_PORT: portOf(ports.router),
            ROUTER_ADMIN_PORT: portOf(ports.routerAdmin),
          }),
          "router",
          replica,
        ),
        { echo: options.echo, replica },
      ),
    );
    const router = routers[0]!;
    const videos = await videosStarting;
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
          ROUTER_URL: grpcAddresses(routers),
          LEDGER_URL: ledgerUrl,
          VIDEO_URL: grpcAddresses(videos),
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
            LEDGER_URL: ledgerUrl,
            ROUTER_URL: grpcAddresses(routers),
          }),
          simulatorUrl,
          replicas: replicaCount,
          echo: options.echo,
          track,
        })
      : undefined;
    const replicas: StackReplicas = {
      ...(simulator && { simulator: [simulator] }),
      ledger: ledgers,
      router: routers,
      edge: [edge],
      video: videos,
      ...consoleParts?.replicas,
    };
    const processes = firstReplicas(replicas);
    // Read at each call: a service the supervisor restarted keeps its ports anyway.
    const metricsUrlsOf = (name: keyof RunningStack["metricsUrls"]) =>
      replicas[name].map((process) => `http://${host}:${process.ports.admin}/metrics`);
    return {
      ...ledgerAdmin,
      baseUrl: `http://${host}:${edge.ports.http}/v1`,
      catalogueAdminUrl: `http://${host}:${router.ports.admin}/admin`,
      routerUrl: grpcAddresses(routers),
      simulatorUrl,
      processes,
      replicas,
      consoleUrl: consoleParts?.consoleUrl,
      oidcIssuer: consoleParts?.oidcIssuer,
      get metricsUrls() {
        const first = (name: keyof RunningStack["metricsUrls"]) => metricsUrlsOf(name)[0]!;
        return { edge: first("edge"), router: first("router"), ledger: first("ledger"), video: first("video") };
      },
      get replicaMetricsUrls() {
        return {
          edge: metricsUrlsOf("edge"),
          router: metricsUrlsOf("router"),
          ledger: metricsUrlsOf("ledger"),
          video: metricsUrlsOf("video"),
        };
      },
      videoEnv,
      // Edge first, so no request arrives at a service that is already gone; a supervisor may have replaced any.
      stop: async () => {
        for (const name of ["console", "oidcProvider", "edge", "router", "video", "ledger", "simulator"] as const) {
          await Promise.all((replicas[name] ?? []).map((process) => process.stop()));
        }
      },
    };
  } catch (error) {
    await Promise.allSettled(starting.map((service) => service.then((process) => process.stop("SIGKILL"))));
    throw error;
  }
}
