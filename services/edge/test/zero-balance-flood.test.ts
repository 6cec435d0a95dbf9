import { spawn } from "node:child_process";
import { once } from "node:events";
import { getPriority, setPriority } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { exitedProcesses, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stallBody } from "./stalled-bodies.js";

// A key with nothing to spend sends the worst requests it can, 50 at a time: maximal bodies,
// bodies of as many tiny messages as edge takes, uploads it never finishes, and stored
// conversations to load. Another tenant's steady requests stay fast and no process stops.

const attackers = 50;
const floodMs = 30_000;

let stack: TestStack;
let victimKey: string;
let attackerKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  const [victim, attacker] = await Promise.all([
    stack.createAccount({ group: "premium" }),
    stack.createAccount({ group: "premium", creditYuan: 0 }),
  ]);
  victimKey = victim.api_key;
  attackerKey = attacker.api_key;
});
afterAll(async () => {
  await stack?.teardown();
});

// Encoded once: the test's own client must not be what runs out of CPU.
const maximalBody = Buffer.from(
  JSON.stringify({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "word ".repeat(Math.floor((19.5 * 1024 * 1024) / 5)) }],
  }),
);
// Just under edge's bound on the values of a body.
const tinyMessagesBody = Buffer.from(
  JSON.stringify({
    model: "gpt-4o-mini",
    messages: Array.from({ length: 160_000 }, () => ({ role: "user", content: "" })),
  }),
);
const loadBody = JSON.stringify({ model: "gpt-4o-mini", input: "hi", previous_response_id: `resp_${"0".repeat(48)}` });

async function attackWith(body: Buffer | string, path: string, until: number) {
  while (Date.now() < until) {
    await fetch(`${stack.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${attackerKey}`, "content-type": "application/json" },
      body,
    })
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
  }
}

async function stallUploads(until: number) {
  const boundary = "flood";
  while (Date.now() < until) {
    await stallBody(stack.baseUrl, "/images/edits", {
      apiKey: attackerKey,
      contentType: `multipart/form-data; boundary=${boundary}`,
      declaredBytes: 49 * 1024 * 1024,
      sentBytes: 64 * 1024,
      prefix: `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\n`,
    }).answer;
  }
}

// The tenant's requests are timed from a process of their own at the usual priority, while this
// one, which plays the attacker, runs at the lowest: an attacker's CPU is not the gateway's, and
// on a 2-core machine the attacking client would otherwise starve everything, the tenant's own
// client included.
const tenantScript = `
const seen = [];
while (Date.now() < Number(process.env.UNTIL)) {
  const startedAt = performance.now();
  const response = await fetch(process.env.BASE_URL + "/chat/completions", {
    method: "POST",
    headers: { authorization: "Bearer " + process.env.KEY, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content: "hello" }] }),
  });
  await response.arrayBuffer();
  seen.push({ ms: performance.now() - startedAt, status: response.status });
  await new Promise((resolve) => setTimeout(resolve, 100));
}
process.stdout.write(JSON.stringify(seen));
`;

async function victimLatencies(until: number, priority: number): Promise<{ ms: number; status: number }[]> {
  const tenant = spawn(process.execPath, ["--input-type=module", "-e", tenantScript], {
    env: { ...process.env, UNTIL: String(until), BASE_URL: stack.baseUrl, KEY: victimKey },
    stdio: ["ignore", "pipe", "inherit"],
  });
  setPriority(tenant.pid!, priority);
  let output = "";
  tenant.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = await once(tenant, "exit");
  expect(code).toBe(0);
  return JSON.parse(output) as { ms: number; status: number }[];
}

const percentile = (values: number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))]!;

describe("a zero-balance key flooding the gateway", () => {
  it("keeps another tenant's p99 under a second and stops no process", async () => {
    const pids = Object.fromEntries(Object.entries(stack.processes).map(([name, { child }]) => [name, child.pid]));
    const until = Date.now() + floodMs;
    const priority = getPriority();
    setPriority(19);
    const attacks = Array.from({ length: attackers }, (_, index) => {
      const kind = index % 4;
      if (kind === 0) return attackWith(maximalBody, "/chat/completions", until);
      if (kind === 1) return attackWith(tinyMessagesBody, "/chat/completions", until);
      if (kind === 2) return stallUploads(until);
      return attackWith(loadBody, "/responses", until);
    });
    // The attack is under way before the tenant's requests are timed.
    await sleep(2_000);
    const [seen] = await Promise.all([victimLatencies(until, priority), ...attacks]).finally(() =>
      setPriority(priority),
    );
    const latencies = seen.map(({ ms }) => ms);
    const p99 = percentile(latencies, 0.99);
    console.log(
      `tenant: ${seen.length} requests, p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`,
    );
    expect(seen.filter(({ status }) => status !== 200)).toEqual([]);
    expect(p99).toBeLessThan(1_000);
    expect(exitedProcesses(stack.processes)).toEqual([]);
    expect(Object.fromEntries(Object.entries(stack.processes).map(([name, { child }]) => [name, child.pid]))).toEqual(
      pids,
    );
  }, 120_000);
});
