import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { parseArgs } from "node:util";
import { serviceNode } from "@gateway/stack";
import { cannon, type Target } from "./load.js";
import { startPortkey } from "./portkey.js";
import { machine } from "./report.js";
import { cpuTicks, ticksPerSecond, waitForIdle } from "./settle.js";

// `node tools/bench/dist/hop-floor.js [--seconds N] [--connections N]`: the saturation throughput of
// the architecture's bare hop (express → grpc-js → undici, forwarding bytes, none of the gateway's
// work) beside Portkey and the upstream, in one run, to tell what the fixed stack allows at best.

const { values: flags } = parseArgs({
  options: { seconds: { type: "string", default: "8" }, connections: { type: "string", default: "64" } },
});
const seconds = Number(flags.seconds);
const connections = Number(flags.connections);
const processes = new URL("./hop-floor-processes.js", import.meta.url).pathname;
const children: ChildProcess[] = [];

/** Starts one role of hop-floor-processes on the services' Node and resolves with the port it listens on. */
async function start(role: string, target = ""): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(serviceNode, [processes, role, target], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  const [line] = (await once(child.stdout!, "data")) as [Buffer];
  const port = Number(/listening (\d+)/.exec(line.toString())?.[1]);
  if (!port) throw new Error(`${role} did not start: ${line}`);
  return { child, port };
}

const chat = (name: string, port: number, path = "/v1/chat/completions"): Target => ({
  name,
  url: `http://127.0.0.1:${port}${path}`,
  headers: {},
});

async function measure(target: Target, pids: Record<string, number>) {
  await waitForIdle(Object.values(pids));
  await cannon(target, connections, 2);
  const before = Object.values(pids).map(cpuTicks);
  const { result, timingsMs } = await cannon(target, connections, seconds);
  const requests = timingsMs.length;
  const cpuMsPerRequest = Object.fromEntries(
    Object.entries(pids).map(([name, pid], i) => [
      name,
      Math.round(((cpuTicks(pid) - before[i]!) / ticksPerSecond / requests) * 1e6) / 1e3,
    ]),
  );
  return {
    requestsPerSecond: Math.round(requests / result.duration),
    failed: result.non2xx + result.errors,
    cpuMsPerRequest,
  };
}

async function main() {
  const upstream = await start("upstream");
  const vendorUrl = `http://127.0.0.1:${upstream.port}/v1/chat/completions`;
  const router = await start("router", vendorUrl);
  const edge = await start("edge", `127.0.0.1:${router.port}`);
  const single = await start("edge-direct", vendorUrl);
  const portkey = await startPortkey(`http://127.0.0.1:${upstream.port}/v1`);
  try {
    const pid = (child: ChildProcess) => child.pid!;
    const results = {
      upstream: await measure(chat("upstream", upstream.port), { upstream: pid(upstream.child) }),
      portkey: await measure(portkey.target("portkey"), { portkey: pid(portkey.child), upstream: pid(upstream.child) }),
      expressToVendor: await measure(chat("express → vendor", single.port), {
        edge: pid(single.child),
        upstream: pid(upstream.child),
      }),
      expressGrpcVendor: await measure(chat("express → grpc-js → vendor", edge.port), {
        edge: pid(edge.child),
        router: pid(router.child),
        upstream: pid(upstream.child),
      }),
    };
    const ratio = (rps: number) => Math.round((rps / results.portkey.requestsPerSecond) * 100) / 100;
    const summary = {
      machine: machine(),
      connections,
      seconds,
      results,
      vsPortkey: {
        expressToVendor: ratio(results.expressToVendor.requestsPerSecond),
        expressGrpcVendor: ratio(results.expressGrpcVendor.requestsPerSecond),
      },
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await portkey.stop();
    for (const child of children) child.kill();
  }
}

await main();
process.exit(0);
