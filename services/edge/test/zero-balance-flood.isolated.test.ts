import { exitedProcesses, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stallBody } from "./stalled-bodies.js";
import { percentile, postUntil, processIds, tenantBesideAttack } from "./tenant-beside-attack.js";

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

const attackWith = (body: Buffer | string, path: string, until: number) =>
  postUntil(stack, attackerKey, path, body, until);

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

describe("a zero-balance key flooding the gateway", () => {
  it("keeps another tenant's p99 under a second and stops no process", async () => {
    const pids = processIds(stack);
    const until = Date.now() + floodMs;
    const { tenant: seen } = await tenantBesideAttack<unknown>(stack, victimKey, {
      until,
      // The attack is under way before the tenant's requests are timed.
      headStartMs: 2_000,
      attack: () =>
        Array.from({ length: attackers }, (_, index) => {
          const kind = index % 4;
          if (kind === 0) return attackWith(maximalBody, "/chat/completions", until);
          if (kind === 1) return attackWith(tinyMessagesBody, "/chat/completions", until);
          if (kind === 2) return stallUploads(until);
          return attackWith(loadBody, "/responses", until);
        }),
    });
    const latencies = seen.map(({ ms }) => ms);
    const p99 = percentile(latencies, 0.99);
    console.log(
      `tenant: ${seen.length} requests, p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`,
    );
    expect(seen.filter(({ status }) => status !== 200)).toEqual([]);
    expect(p99).toBeLessThan(1_000);
    expect(exitedProcesses(stack.processes)).toEqual([]);
    expect(processIds(stack)).toEqual(pids);
  }, 120_000);
});
