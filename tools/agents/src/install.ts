import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { repoRoot } from "@gateway/stack";
import { type AgentName, agentNames, agentVersions } from "./versions.js";

/** Gitignored; each agent version gets a folder of its own, so a bump installs afresh beside the old. */
export const agentsCacheDir = `${repoRoot}.gateway/agents`;

function installedVersion(folder: string, packageName: string): string | undefined {
  try {
    const manifest = readFileSync(`${folder}/node_modules/${packageName}/package.json`, "utf8");
    return (JSON.parse(manifest) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function npm(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`npm ${args.join(" ")} exited ${code}: ${stderr.trim()}`)),
    );
  });
}

/** Installs the agent's pinned version unless it is there already; answers the path of its command. */
export async function installAgent(agent: AgentName): Promise<string> {
  const { package: packageName, version, bin } = agentVersions[agent];
  const folder = `${agentsCacheDir}/${agent}@${version}`;
  const binary = `${folder}/node_modules/.bin/${bin}`;
  if (installedVersion(folder, packageName) === version) return binary;
  const partial = `${folder}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  // Dependencies' install scripts stay off (node-pty's would need a compiler a fresh CI machine
  // may lack); the agent's own runs after, as Claude Code and opencode put their binary in place in it.
  await npm([
    "install",
    "--prefix",
    partial,
    "--no-save",
    "--no-package-lock",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
    "--loglevel=error",
    `${packageName}@${version}`,
  ]);
  await npm(["rebuild", "--prefix", partial, "--loglevel=error", packageName]);
  // Moved into place whole, so an interrupted install never passes for a finished one.
  rmSync(folder, { recursive: true, force: true });
  renameSync(partial, folder);
  return binary;
}

/** Every pinned agent, installed side by side; their commands by agent. */
export async function installAgents(): Promise<Record<AgentName, string>> {
  const binaries = await Promise.all(agentNames.map(installAgent));
  return Object.fromEntries(agentNames.map((agent, index) => [agent, binaries[index]!])) as Record<AgentName, string>;
}
