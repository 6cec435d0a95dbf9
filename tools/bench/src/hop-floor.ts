import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { serviceNode } from "@gateway/stack";
import type { Target } from "./load.js";

// The architecture's bare hop (express → grpc-js, unary or server-streaming → undici, forwarding
// bytes, none of the gateway's work) on the services' Node: what the fixed stack allows at best,
// measured beside Portkey.

const processes = new URL("./hop-floor-processes.js", import.meta.url).pathname;

export interface HopFloor {
  target: Target;
  // Named as the gateway's own, so the CPU per request compares role by role.
  pids: { edge: number; router: number };
  stop(): void;
}

/** Starts one role of hop-floor-processes and resolves once it listens, with its port. */
async function start(role: string, target: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(serviceNode, [processes, role, target], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  const port = Number(/listening (\d+)/.exec(line.toString())?.[1]);
  if (!port) {
    child.kill();
    throw new Error(`hop floor ${role} did not start: ${line}`);
  }
  return { child, port };
}

/** The floor's edge and router, forwarding to `vendorUrl` (an OpenAI-compatible chat completions URL). */
export async function startHopFloor(vendorUrl: string): Promise<HopFloor> {
  const router = await start("router", vendorUrl);
  const edge = await start("edge", `127.0.0.1:${router.port}`).catch((error) => {
    router.child.kill();
    throw error;
  });
  return {
    target: { name: "hop floor", url: `http://127.0.0.1:${edge.port}/v1/chat/completions`, headers: {} },
    pids: { edge: edge.child.pid!, router: router.child.pid! },
    stop() {
      edge.child.kill();
      router.child.kill();
    },
  };
}
