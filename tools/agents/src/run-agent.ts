import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentDriver, AgentGateway, AgentReply } from "./agent-driver.js";

/** The small file each run's agent is asked to read; its words reach the vendor only if the tool ran. */
export const fixtureFile = { name: "hello.txt", text: "The fixture says: seven blue herons stand in the reeds.\n" };

export interface AgentRunRequest {
  binary: string;
  driver: AgentDriver;
  gateway: AgentGateway;
  model: string;
  /** The user's words; the run adds the directive that has the simulator read the fixture. */
  ask: string;
  timeoutMs: number;
}

export interface AgentRunResult {
  exitCode: number | null;
  /** Set when the run outlived its timeout and was killed. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** The agent's answer as its output states it; undefined when the output does not parse. */
  reply?: AgentReply;
}

/**
 * Runs the agent once, headless, in a temporary home and working directory holding the
 * fixture, with an environment of only what it needs (no vendor key of the machine leaks in).
 */
export async function runAgent(request: AgentRunRequest): Promise<AgentRunResult> {
  const root = mkdtempSync(join(tmpdir(), "coding-agent-"));
  const home = join(root, "home");
  const workDir = join(root, "work");
  mkdirSync(home);
  mkdirSync(workDir);
  writeFileSync(join(workDir, fixtureFile.name), fixtureFile.text);
  try {
    const prompt = `${request.ask} ${request.driver.readFileDirective(workDir, fixtureFile.name)}`;
    const { args, env } = request.driver.invocation({
      gateway: request.gateway,
      model: request.model,
      prompt,
      home,
      workDir,
    });
    const result = await spawnAgent(request.binary, args, {
      cwd: workDir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: root, LANG: "C.UTF-8", ...env },
      timeoutMs: request.timeoutMs,
    });
    return { ...result, reply: parsedReply(request.driver, result.stdout) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function parsedReply(driver: AgentDriver, stdout: string): AgentReply | undefined {
  try {
    return driver.reply(stdout);
  } catch {
    return undefined;
  }
}

interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

function spawnAgent(binary: string, args: string[], options: SpawnOptions): Promise<Omit<AgentRunResult, "reply">> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout also ends the shells and helpers the agent started.
    const child = spawn(binary, args, { cwd: options.cwd, env: options.env, detached: true, stdio: "pipe" });
    child.stdin.end();
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, timedOut, stdout, stderr });
    });
  });
}
