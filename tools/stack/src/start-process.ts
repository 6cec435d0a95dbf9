import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./redis-server.js";
import { repoRoot } from "./repo-paths.js";
import {
  createTemporaryDatabase,
  eventually,
  type TemporaryDatabase,
  testServers,
  uniqueNamespace,
} from "./test-resources.js";
import { deleteStream } from "./test-stack.js";

/** What `pnpm start` writes to `.gateway/stack.json` in the directory it runs from. */
export interface StartedState {
  adminUrl: string;
  adminToken: string;
  baseUrl: string;
  routerUrl: string;
  demo: { api_key: string; account_id: string };
  processes: { service: string; replica: number; pid: number; ports: Record<string, number> }[];
}

export interface StartedGateway {
  process: ChildProcess;
  namespace: string;
  /** Where it runs, and so where it writes `.gateway/stack.json` (the CLI's GATEWAY_HOME). */
  directory: string;
  // Ports picked before the start, so a test can watch edge from its first moment.
  edgePort: number;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves once it has written its state file, i.e. said it is running. */
  running(): Promise<StartedState>;
  /** The entry points (services/<name>/dist/main.js and the like) of the processes it runs. */
  serviceEntries(): string[];
  /** Every process on this machine that runs in its namespace, whoever its parent is now. */
  processesLeft(): number[];
  /** SIGTERM, then drops its database, stream and directories. */
  stop(): Promise<void>;
}

/**
 * `pnpm start` itself (tools/stack/dist/start.js) for a test: in a directory of its own, with its
 * own database and namespace, on ports picked at run time; `env` over that.
 */
export async function spawnStart(env: NodeJS.ProcessEnv = {}): Promise<StartedGateway> {
  const database: TemporaryDatabase = await createTemporaryDatabase();
  const namespace = uniqueNamespace();
  const directory = mkdtempSync(join(tmpdir(), "gw-start-"));
  const [edgePort, consolePort] = [await freePort(), await freePort()];
  const pickedAtStart = [
    "ROUTER_PORT",
    "LEDGER_GRPC_PORT",
    "LEDGER_ADMIN_PORT",
    "SIMULATOR_PORT",
    "VIDEO_GRPC_PORT",
    "EDGE_ADMIN_PORT",
    "ROUTER_ADMIN_PORT",
    "VIDEO_ADMIN_PORT",
    "CONSOLE_ADMIN_PORT",
    "DEV_OIDC_PORT",
  ];
  const child = spawn(process.execPath, [`${repoRoot}tools/stack/dist/start.js`], {
    cwd: directory,
    env: {
      ...process.env,
      ...Object.fromEntries(pickedAtStart.map((name) => [name, "0"])),
      GATEWAY_PORT: String(edgePort),
      CONSOLE_PORT: String(consolePort),
      DATABASE_URL: database.url,
      POSTGRES_ADMIN_URL: testServers.postgresUrl,
      REDIS_URL: testServers.redisUrl,
      NATS_URL: testServers.natsUrl,
      GATEWAY_NAMESPACE: namespace,
      GATEWAY_ADMIN_TOKEN: randomBytes(24).toString("hex"),
      GATEWAY_DEMO_KEY: "",
      VIDEO_STORAGE_DIR: join(directory, "videos"),
      GATEWAY_ECHO_LOGS: "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (data: Buffer) => (output += data.toString()));
  child.stderr!.on("data", (data: Buffer) => (output += data.toString()));
  return {
    process: child,
    namespace,
    directory,
    edgePort,
    output: () => output,
    running: () =>
      eventually(async () => {
        if (child.exitCode !== null) throw new Error(`pnpm start exited:\n${output}`);
        try {
          return JSON.parse(readFileSync(join(directory, ".gateway", "stack.json"), "utf8")) as StartedState;
        } catch {
          return undefined;
        }
      }, 90_000),
    serviceEntries: () =>
      execFileSync("ps", ["-o", "args=", "--ppid", String(child.pid)], { encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .map((args) => args.split(/\s+/).at(-1)!.replace(repoRoot, "")),
    processesLeft: () =>
      readdirSync("/proc")
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`GATEWAY_NAMESPACE=${namespace}`);
          } catch {
            return false;
          }
        })
        .map(Number),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await database.drop();
      await deleteStream(namespace);
      rmSync(`${repoRoot}.gateway/spool/${namespace}`, { recursive: true, force: true });
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
