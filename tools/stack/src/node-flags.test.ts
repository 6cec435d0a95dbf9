import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nodeFlagsFor } from "./node-flags.js";
import { startService } from "./service-process.js";

const directory = mkdtempSync(join(tmpdir(), "gw-node-flags-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// A stand-in service that reports V8's heap limit in MB as its ready line's only "port".
const entry = join(directory, "heap-limit.mjs");
writeFileSync(
  entry,
  `import { getHeapStatistics } from "node:v8";
   const limit = Math.round(getHeapStatistics().heap_size_limit / 2 ** 20);
   console.log(JSON.stringify({ level: 30, msg: "ready", ports: { limit } }));
   setInterval(() => {}, 1000);`,
);

async function heapLimitMb(service: string, env: NodeJS.ProcessEnv) {
  const started = await startService(service, entry, env);
  await started.stop();
  return started.ports.limit!;
}

describe("nodeFlagsFor", () => {
  it("gives a service its flags, less any its NODE_OPTIONS sets, in either spelling", () => {
    expect(nodeFlagsFor("edge")).toEqual(["--max-semi-space-size=4", "--max-old-space-size=320"]);
    expect(nodeFlagsFor("edge", "--max-old-space-size=96 --import=x.js")).toEqual(["--max-semi-space-size=4"]);
    expect(nodeFlagsFor("router", "--max_semi_space_size=2")).toEqual(["--max-old-space-size=448"]);
    expect(nodeFlagsFor("simulator")).toEqual([]);
  });

  it("lets NODE_OPTIONS set a heap size the stack otherwise sets on the command line", async () => {
    expect(await heapLimitMb("edge", {})).toBeGreaterThan(320);
    expect(await heapLimitMb("edge", { NODE_OPTIONS: "--max-old-space-size=96" })).toBeLessThan(128);
  });
});
