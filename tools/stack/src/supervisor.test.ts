import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answersNormally, type CrashRequestKeys, crashRequests } from "./crash-requests.js";
import { repoRoot } from "./repo-paths.js";
import {
  createTemporaryDatabase,
  eventually,
  type TemporaryDatabase,
  testServers,
  uniqueNamespace,
} from "./test-resources.js";
import { deleteStream } from "./test-stack.js";

// `pnpm start` itself (tools/stack/dist/start.js), on ports chosen at run time, in a directory of its own.

let database: TemporaryDatabase;
let namespace: string;
let directory: string;
let start: ChildProcess;
let console_ = "";
let baseUrl: string;
let keys: CrashRequestKeys;

interface StackFile {
  adminUrl: string;
  adminToken: string;
  baseUrl: string;
  demo: { api_key: string };
}

/** The pid of one service `pnpm start` runs, found by its entry point. */
function pidOf(service: string): number {
  const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(start.pid)], { encoding: "utf8" });
  const line = children.split("\n").find((row) => row.includes(`services/${service}/dist/main.js`));
  if (!line) throw new Error(`no ${service} process under pnpm start:\n${children}`);
  return Number(line.trim().split(/\s+/)[0]);
}

beforeAll(async () => {
  database = await createTemporaryDatabase();
  namespace = uniqueNamespace();
  directory = mkdtempSync(join(tmpdir(), "gw-start-"));
  const ports = [
    "GATEWAY_PORT",
    "ROUTER_PORT",
    "LEDGER_GRPC_PORT",
    "LEDGER_ADMIN_PORT",
    "SIMULATOR_PORT",
    "VIDEO_GRPC_PORT",
  ];
  start = spawn(process.execPath, [`${repoRoot}tools/stack/dist/start.js`], {
    cwd: directory,
    env: {
      ...process.env,
      ...Object.fromEntries(ports.map((name) => [name, "0"])),
      DATABASE_URL: database.url,
      POSTGRES_ADMIN_URL: testServers.postgresUrl,
      REDIS_URL: testServers.redisUrl,
      NATS_URL: testServers.natsUrl,
      GATEWAY_NAMESPACE: namespace,
      GATEWAY_ADMIN_TOKEN: randomBytes(24).toString("hex"),
      GATEWAY_DEMO_KEY: "",
      VIDEO_STORAGE_DIR: join(directory, "videos"),
      GATEWAY_ECHO_LOGS: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  start.stdout!.on("data", (data: Buffer) => (console_ += data.toString()));
  start.stderr!.on("data", (data: Buffer) => (console_ += data.toString()));
  const state = await eventually(async () => {
    if (start.exitCode !== null) throw new Error(`pnpm start exited:\n${console_}`);
    try {
      return JSON.parse(readFileSync(join(directory, ".gateway", "stack.json"), "utf8")) as StackFile;
    } catch {
      return undefined;
    }
  }, 90_000);
  baseUrl = state.baseUrl;
  const broke = await fetch(`${state.adminUrl}/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${state.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "broke", group: "premium", credit_yuan: 0 }),
  });
  keys = { apiKey: state.demo.api_key, brokeKey: ((await broke.json()) as { api_key: string }).api_key };
}, 120_000);

afterAll(async () => {
  if (start && start.exitCode === null) {
    const exited = new Promise((resolve) => start.once("exit", resolve));
    start.kill("SIGTERM");
    await exited;
  }
  await database?.drop();
  await deleteStream(namespace);
  rmSync(`${repoRoot}.gateway/spool/${namespace}`, { recursive: true, force: true });
  rmSync(directory, { recursive: true, force: true });
}, 60_000);

describe("pnpm start's supervisor", () => {
  it("keeps serving through every request that once stopped a process, with no restart", async () => {
    expect(await answersNormally(baseUrl, keys.apiKey)).toBe(true);
    for (const request of crashRequests) {
      const response = await request.send(baseUrl, keys);
      await response.arrayBuffer();
      expect({ name: request.name, status: response.status }).toEqual({ name: request.name, status: request.status });
      expect(await answersNormally(baseUrl, keys.apiKey)).toBe(true);
    }
    expect(console_).not.toMatch(/restarting|uncaught exception|unhandled rejection/);
  }, 120_000);

  it("restarts a killed service on its ports, says why, and the stack answers again", async () => {
    process.kill(pidOf("router"), "SIGKILL");
    await eventually(async () => (console_.includes("router is running again.") ? true : undefined), 60_000);
    expect(console_).toContain("router was killed by SIGKILL");
    expect(console_).toMatch(/router: restarting in [\d.]+ s/);
    await eventually(async () => ((await answersNormally(baseUrl, keys.apiKey)) ? true : undefined), 60_000, 500);
    expect(start.exitCode).toBeNull();
  }, 150_000);

  it("leaves stopped a service that drained and exited 0 after SIGTERM", async () => {
    const video = pidOf("video");
    process.kill(video, "SIGTERM");
    await eventually(async () => (console_.includes("video stopped (exit code 0)") ? true : undefined), 60_000);
    expect(console_).not.toMatch(/video: restarting/);
    expect(() => pidOf("video")).toThrow(/no video process/);
    expect(start.exitCode).toBeNull();
  }, 90_000);
});
