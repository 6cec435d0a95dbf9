import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { gatewayRedisCommands } from "./redis-acl.js";
import { repoRoot } from "./repo-paths.js";

// Redis checks each command a Lua script runs against the caller's ACL, so a script that gains
// a command fails only where the least-privilege user is in force (production), never locally.
const scriptCall = /redis\.p?call\(\s*["']([A-Za-z]+)["']/g;

function productionSources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory())
      return ["node_modules", "dist", "test", "web"].includes(entry.name) ? [] : productionSources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

function scriptCommandsOf(source: string): string[] {
  return [...source.matchAll(scriptCall)].map(([, command]) => command!.toLowerCase());
}

it("finds the commands a Lua script calls", () => {
  expect(scriptCommandsOf(`local n = redis.call('INCR', key) redis.pcall("hget", k, f)`)).toEqual(["incr", "hget"]);
});

it("lets the services' Redis user run every command their Lua scripts call", () => {
  const sources = ["packages", "services"].flatMap((folder) => productionSources(join(repoRoot, folder)));
  const called = new Set(sources.flatMap((path) => scriptCommandsOf(readFileSync(path, "utf8"))));
  expect(called.size).toBeGreaterThan(5);
  const allowed = new Set<string>(gatewayRedisCommands);
  expect([...called].filter((command) => !allowed.has(command))).toEqual([]);
});
