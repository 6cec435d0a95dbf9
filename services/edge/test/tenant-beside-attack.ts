import { spawn } from "node:child_process";
import { once } from "node:events";
import { getPriority, setPriority } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { TestStack } from "@gateway/stack";

/** One of the tenant's requests: how long its answer took, and its status. */
export interface TenantRequest {
  ms: number;
  status: number;
}

// The tenant's requests are timed from a process of their own at the usual priority, while the
// test's process, which plays the attacker, runs at the lowest: an attacker's CPU is not the
// gateway's, and on a 2-core machine the attacking client would otherwise starve everything,
// the tenant's own client included.
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

async function tenantRequests(baseUrl: string, apiKey: string, until: number, priority: number) {
  const tenant = spawn(process.execPath, ["--input-type=module", "-e", tenantScript], {
    env: { ...process.env, UNTIL: String(until), BASE_URL: baseUrl, KEY: apiKey },
    stdio: ["ignore", "pipe", "inherit"],
  });
  setPriority(tenant.pid!, priority);
  let output = "";
  tenant.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = await once(tenant, "exit");
  if (code !== 0) throw new Error(`the tenant's client exited with ${code}`);
  return JSON.parse(output) as TenantRequest[];
}

/**
 * Runs `attack` (whose promises must settle by `until`) from this process at the lowest
 * priority and, once it has been under way `headStartMs`, times another tenant's small chat
 * requests (one every 100 ms) until `until` from a child process at this process's own priority.
 */
export async function tenantBesideAttack<T>(
  stack: TestStack,
  tenantKey: string,
  { until, headStartMs, attack }: { until: number; headStartMs: number; attack: () => Promise<T>[] },
): Promise<{ tenant: TenantRequest[]; attacks: T[] }> {
  const priority = getPriority();
  setPriority(19);
  try {
    const attacks = Promise.all(attack());
    await sleep(headStartMs);
    const [tenant, settled] = await Promise.all([tenantRequests(stack.baseUrl, tenantKey, until, priority), attacks]);
    return { tenant, attacks: settled };
  } finally {
    setPriority(priority);
  }
}

/**
 * Posts `body` to `path` with `apiKey` again and again until `until`, one request at a time,
 * and counts the answers by status (0: no answer).
 */
export async function postUntil(
  stack: TestStack,
  apiKey: string,
  path: string,
  body: Buffer | string,
  until: number,
): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  while (Date.now() < until) {
    const status = await fetch(`${stack.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body,
    })
      .then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      })
      .catch(() => 0);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  return statuses;
}

export const percentile = (values: number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * fraction))]!;

/** Each process's pid, to tell afterwards that none was restarted. */
export const processIds = (stack: TestStack) =>
  Object.fromEntries(Object.entries(stack.processes).map(([name, { child }]) => [name, child.pid]));
