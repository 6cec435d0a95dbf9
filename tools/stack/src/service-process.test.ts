import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { startService } from "./service-process.js";

const directory = mkdtempSync(join(tmpdir(), "gw-service-process-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

// A stand-in entry point that logs one line of each kind, then its ready line, then waits.
const entry = join(directory, "service.mjs");
writeFileSync(
  entry,
  `for (const level of [30, 40, 50]) console.log(JSON.stringify({ level, msg: "at " + level }));
   console.error("Error: a stack trace line");
   console.log(JSON.stringify({ level: 30, msg: "ready", ports: { http: 1 } }));
   setInterval(() => {}, 1000);`,
);

async function echoed(echo: boolean | "problems") {
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const capture = (chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (String(chunk).startsWith("[svc] ")) written.push(String(chunk).trim());
    else (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(capture as typeof process.stdout.write);
  const service = await startService("svc", entry, {}, { echo });
  // Both pipes are read line by line; give stderr's line time to arrive.
  await new Promise((resolve) => setTimeout(resolve, 200));
  await service.stop();
  return written.sort();
}

describe("startService's echo", () => {
  it("prints only warnings, errors and non-log lines, prefixed with the service's name", async () => {
    expect(await echoed("problems")).toEqual([
      "[svc] Error: a stack trace line",
      '[svc] {"level":40,"msg":"at 40"}',
      '[svc] {"level":50,"msg":"at 50"}',
    ]);
  });

  it("prints every line when asked to", async () => {
    expect(await echoed(true)).toHaveLength(5);
  });
});
