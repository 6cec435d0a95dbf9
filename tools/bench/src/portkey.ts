import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { serviceNode } from "@gateway/stack";
import type { Target } from "./load.js";

// The package installed for tools/bench; dist/portkey.js sits one level below the package root.
const packageDir = fileURLToPath(new URL("../node_modules/@portkey-ai/gateway/", import.meta.url));

export interface PortkeyGateway {
  child: ChildProcess;
  /** Chat completions through Portkey, forwarded to the given OpenAI-compatible upstream. */
  target(name: string): Target;
  stop(): Promise<void>;
}

/** Portkey takes a port only as `--port=N`, not 0, so pick a free one and hand it over. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Polls Portkey's root route, which answers once its HTTP server listens. */
async function waitUntilListening(child: ChildProcess, url: string, output: string[], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Portkey exited with ${child.exitCode}:\n${output.join("")}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`Portkey did not start listening within ${timeoutMs} ms:\n${output.join("")}`);
}

/**
 * Starts Portkey's Node server in headless mode (no log UI) and points its OpenAI provider at
 * `upstreamV1Url` through `x-portkey-custom-host`, which it only allows for loopback hosts by default.
 */
export async function startPortkey(upstreamV1Url: string): Promise<PortkeyGateway> {
  const port = await freePort();
  // On the gateway's own Node, so the comparison is of the two gateways, not of two Nodes.
  const child = spawn(serviceNode, ["build/start-server.js", `--port=${port}`, "--headless"], {
    cwd: packageDir,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Kept only to explain a failed start; its banner and per-request logs are otherwise noise.
  const output: string[] = [];
  const keep = (chunk: Buffer) => output.length < 200 && output.push(chunk.toString());
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  try {
    await waitUntilListening(child, `http://127.0.0.1:${port}/`, output);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    child,
    target: (name) => ({
      name,
      url: `http://127.0.0.1:${port}/v1/chat/completions`,
      headers: {
        authorization: "Bearer anything",
        "x-portkey-provider": "openai",
        "x-portkey-custom-host": upstreamV1Url,
      },
    }),
    stop: () => stopChild(child),
  };
}
