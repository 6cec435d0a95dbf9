import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startService } from "./service-process.js";
import { type RunningStack, startStack } from "./stack.js";
import { superviseStack } from "./supervisor.js";
import { eventually } from "./test-resources.js";

// Stand-in services that write their pid to PIDS_FILE, so a test can check that every process
// started has exited once whatever started it says it is done.
const directory = mkdtempSync(join(tmpdir(), "gw-left-behind-"));
let pidsFile: string;

const readyLine = `console.log(JSON.stringify({ level: 30, msg: "ready", ports: { http: 1 } }))`;
const standIn = (name: string, body: string) => {
  const path = join(directory, `${name}.mjs`);
  writeFileSync(
    path,
    `import { appendFileSync, readFileSync } from "node:fs";
     appendFileSync(process.env.PIDS_FILE, process.pid + "\\n");
     const runs = readFileSync(process.env.PIDS_FILE, "utf8").trim().split("\\n").length;
     ${body}
     setInterval(() => {}, 1000);`,
  );
  return path;
};
// Ready at once then crashes on its first run; every later run is a minute from ready.
const crashingService = standIn(
  "crashing",
  `if (runs === 1) { ${readyLine}; setTimeout(() => process.exit(1), 100); } else setTimeout(() => ${readyLine}, 60_000);`,
);
const slowService = standIn("slow", `setTimeout(() => ${readyLine}, 1_000);`);
const failingService = standIn("failing", "process.exit(1);");

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const pids = () => readFileSync(pidsFile, "utf8").trim().split("\n").filter(Boolean).map(Number);
const freshPidsFile = (test: string) => {
  pidsFile = join(directory, `${test}.pids`);
  writeFileSync(pidsFile, "");
};

afterEach(() => {
  for (const pid of pids().filter(isAlive)) process.kill(pid, "SIGKILL");
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function supervisedCrash(test: string, firstDelayMs: number) {
  freshPidsFile(test);
  const service = await startService("simulator", crashingService, { PIDS_FILE: pidsFile });
  const said: string[] = [];
  const stack = { replicas: { simulator: [service] } } as unknown as RunningStack;
  const supervisor = superviseStack(stack, { echo: false, say: (line) => said.push(line), firstDelayMs });
  await eventually(async () => (said.some((line) => line.includes("restarting in")) ? true : undefined), 10_000, 20);
  return supervisor;
}

describe("the supervisor's stop", () => {
  it("stops a restart still starting and waits for its process to exit", async () => {
    const supervisor = await supervisedCrash("starting", 10);
    await eventually(async () => (pids().length === 2 ? true : undefined), 10_000, 20);
    await supervisor.stop();
    expect(pids().filter(isAlive)).toEqual([]);
  });

  it("starts nothing once stopped during the back-off", async () => {
    const supervisor = await supervisedCrash("backoff", 300);
    await supervisor.stop();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(pids()).toHaveLength(1);
    expect(pids().filter(isAlive)).toEqual([]);
  });
});

describe("a stack that fails to start", () => {
  it("stops a service still starting when another fails", async () => {
    freshPidsFile("stack");
    const started = startStack({
      databaseUrl: "postgresql://unused",
      redisUrl: "redis://unused",
      natsUrl: "nats://unused",
      namespace: "unused",
      adminToken: "unused",
      entries: { simulator: slowService, ledger: failingService },
      env: { PIDS_FILE: pidsFile },
      echo: false,
    });
    await expect(started).rejects.toThrow(/ledger exited with 1 before it was ready/);
    // Long enough for the slow one to have become ready had it been left running.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(pids()).toHaveLength(2);
    expect(pids().filter(isAlive)).toEqual([]);
  });
});
