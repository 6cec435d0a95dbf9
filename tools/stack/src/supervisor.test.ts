import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answersNormally, type CrashRequestKeys, crashRequests } from "./crash-requests.js";
import { type StartedGateway, type StartedState, spawnStart } from "./start-process.js";
import { eventually } from "./test-resources.js";

// `pnpm start` itself (tools/stack/dist/start.js), on ports chosen at run time, in a directory of its own.

let gateway: StartedGateway;
let baseUrl: string;
let keys: CrashRequestKeys;
const output = () => gateway.output();

/** The pid of one service `pnpm start` runs, found by its entry point, if it runs. */
function runningPid(service: string): number | undefined {
  const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(gateway.process.pid)], {
    encoding: "utf8",
  });
  const line = children.split("\n").find((row) => row.includes(`services/${service}/dist/main.js`));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

function pidOf(service: string): number {
  const pid = runningPid(service);
  if (pid === undefined) throw new Error(`no ${service} process under pnpm start`);
  return pid;
}

beforeAll(async () => {
  gateway = await spawnStart();
  const state = await gateway.running();
  baseUrl = state.baseUrl;
  const broke = await fetch(`${state.adminUrl}/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${state.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "broke", group: "premium", credit_yuan: 0 }),
  });
  keys = { apiKey: state.demo.api_key, brokeKey: ((await broke.json()) as { api_key: string }).api_key };
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
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
    expect(output()).not.toMatch(/restarting|uncaught exception|unhandled rejection/);
  }, 120_000);

  it("restarts a killed service on its ports, says why, and the stack answers again", async () => {
    process.kill(pidOf("router"), "SIGKILL");
    await eventually(async () => (output().includes("router is running again.") ? true : undefined), 60_000);
    expect(output()).toContain("router was killed by SIGKILL");
    expect(output()).toMatch(/router: restarting in [\d.]+ s/);
    await eventually(async () => ((await answersNormally(baseUrl, keys.apiKey)) ? true : undefined), 60_000, 500);
    expect(gateway.process.exitCode).toBeNull();
  }, 150_000);

  it("replaces a service that drained and exited 0 after SIGTERM, on its ports, and the stack answers", async () => {
    const video = pidOf("video");
    const before = await gateway.running();
    process.kill(video, "SIGTERM");
    await eventually(async () => (output().includes("video is running again.") ? true : undefined), 60_000);
    expect(output()).toContain("video stopped (exit code 0); starting its replacement.");
    expect(output()).not.toMatch(/video: restarting/);
    const replacement = pidOf("video");
    expect(replacement).not.toBe(video);
    // The state file names the replacement, on its predecessor's ports.
    const videoIn = (state: StartedState) => state.processes.find((entry) => entry.service === "video");
    const after = await eventually(async () => {
      const state = await gateway.running();
      return videoIn(state)?.pid === replacement ? state : undefined;
    });
    expect(videoIn(after)?.ports).toEqual(videoIn(before)?.ports);
    expect(await answersNormally(baseUrl, keys.apiKey)).toBe(true);
    expect(gateway.process.exitCode).toBeNull();
  }, 90_000);

  it("stops every process it runs when it is stopped, one it is restarting too, and only then exits", async () => {
    const killed = pidOf("router");
    process.kill(killed, "SIGKILL");
    // The stop comes the moment the restart has spawned router again, before it is ready.
    await eventually(
      async () => {
        const restarted = runningPid("router");
        return restarted !== undefined && restarted !== killed ? true : undefined;
      },
      10_000,
      10,
    );
    const exited = new Promise((resolve) => gateway.process.once("exit", resolve));
    gateway.process.kill("SIGTERM");
    await exited;
    expect(gateway.processesLeft()).toEqual([]);
  }, 90_000);
});
