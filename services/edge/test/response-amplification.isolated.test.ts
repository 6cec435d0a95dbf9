import { exitedProcesses, queryRows, residentKilobytes, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { percentile, postUntil, processIds, tenantBesideAttack } from "./tenant-beside-attack.js";

// A request of about 100 bytes naming a stored conversation of 3.6 MB makes ledger read it and
// edge send it to router. An account that stored one, and then cannot pay for more, sends 60
// such requests at a time in loops: what ledger and edge hold grows by a bounded amount, and
// another tenant's requests stay fast.
//
// The attacking account has just enough credit to store the conversation and none to spend
// after: until router's first refusal, everything the issue measured (ledger's load, edge's
// decode, the hand-off to router) happens before router checks the balance, so the first wave
// of 60 gets all of it; after it, edge refuses the account's continuations before any lookup.
// The vendor (here the simulator, which shares the machine) is never called, so what is
// measured is the gateway's own work. The tenant's first request (its key looked up at ledger
// while that wave is loaded) was its slowest, 1.4 to 3 s, until the loads had a connection of
// their own.

const attackers = 60;
const attackMs = 16_000;

let stack: TestStack;
let tenantKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  tenantKey = (await stack.createAccount({ group: "premium" })).api_key;
});
afterAll(async () => {
  await stack?.teardown();
});

// A conversation the gateway stores and loads: the Responses API translated onto chat. (OpenAI's
// models are relayed to OpenAI, which keeps their conversations itself.)
const translatedModel = "qwen-plus";

async function postResponse(apiKey: string, body: string) {
  const response = await fetch(`${stack.baseUrl}/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body,
  });
  return { status: response.status, answer: (await response.json()) as { id?: string; error?: { message: string } } };
}

/**
 * An account that stored a conversation of one 3.6 MB input turn and the simulator's answer,
 * created with the credit that request's reservation asks for (as an account without credit is
 * told), rounded up to the fen: what is left after it is billed is less than any later turn
 * reserves.
 */
async function accountWithStoredConversation() {
  const body = JSON.stringify({ model: translatedModel, input: "word ".repeat(720_000), max_output_tokens: 16 });
  const probe = await stack.createAccount({ group: "premium", creditYuan: 0 });
  const refused = await postResponse(probe.api_key, body);
  expect(refused.status).toBe(429);
  const [, cost] = /may cost up to (\d+\.\d{6}) yuan/.exec(refused.answer.error?.message ?? "") ?? [];
  const account = await stack.createAccount({ group: "premium", creditYuan: Math.ceil(Number(cost) * 100) / 100 });
  const stored = await postResponse(account.api_key, body);
  expect(stored.status).toBe(200);
  return { ...account, responseId: stored.answer.id! };
}

type Watched = "ledger" | "edge" | "router";

const residentMb = (name: Watched) => (residentKilobytes(stack.processes[name].child.pid!) ?? Number.NaN) / 1024;

/** Samples the processes' resident sets until `stop`; `growth` is each one's peak over its first sample, in MB. */
function watchResidentGrowth(names: readonly Watched[]) {
  const before = names.map(residentMb);
  const peak = [...before];
  const timer = setInterval(() => {
    names.forEach((name, index) => {
      peak[index] = Math.max(peak[index]!, residentMb(name));
    });
  }, 200);
  return {
    before: Object.fromEntries(names.map((name, index) => [name, Math.round(before[index]!)])),
    stop: () => clearInterval(timer),
    growth: () => Object.fromEntries(names.map((name, index) => [name, Math.round(peak[index]! - before[index]!)])),
  };
}

describe("previous_response_id from an account that cannot pay", () => {
  it("bounds what 60 concurrent loads of a 3.6 MB conversation add to ledger and edge", async () => {
    const attacker = await accountWithStoredConversation();
    const { responseId } = attacker;
    const [{ stored_bytes: storedBytes }] = await queryRows<{ stored_bytes: number }>(
      stack.databaseUrl,
      "SELECT stored_bytes FROM ledger.responses WHERE account_id = $1 AND response_id = $2",
      [attacker.account_id, responseId],
    );
    expect(storedBytes).toBeGreaterThan(3_500_000);

    const load = JSON.stringify({
      model: translatedModel,
      input: "hi",
      max_output_tokens: 16,
      previous_response_id: responseId,
    });
    expect(load.length).toBeLessThan(128);

    const pids = processIds(stack);
    const resident = watchResidentGrowth(["ledger", "edge", "router"]);
    const until = Date.now() + attackMs;
    const { tenant: seen, attacks: answers } = await tenantBesideAttack(stack, tenantKey, {
      until,
      headStartMs: 1_000,
      attack: () =>
        Array.from({ length: attackers }, () => postUntil(stack, attacker.api_key, "/responses", load, until)),
    }).finally(() => resident.stop());
    const growth = resident.growth();

    const statuses: Record<number, number> = {};
    for (const counts of answers) for (const [status, n] of counts) statuses[status] = (statuses[status] ?? 0) + n;
    const latencies = seen.map(({ ms }) => ms);
    const p99 = percentile(latencies, 0.99);
    const tenantErrors = seen.filter(({ status }) => status !== 200);
    console.log(
      `stored ${storedBytes} bytes; attack answers ${JSON.stringify(statuses)}; ` +
        `RSS before ${JSON.stringify(resident.before)} MB, ` +
        `growth ${JSON.stringify(growth)} MB; tenant: ${seen.length} requests, ` +
        `p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, errors ${JSON.stringify(tenantErrors)}`,
    );

    // Measured: ledger +49 to +77 MB, edge +58 to +87 MB. Without edge's reservation for the
    // load and ledger's limit on loads at once: ledger +388 MB, edge +298 MB, and the tenant
    // waited 5 s for a 503.
    expect(growth.ledger).toBeLessThan(150);
    expect(growth.edge).toBeLessThan(150);
    expect(tenantErrors).toEqual([]);
    expect(p99).toBeLessThan(1_000);
    expect(exitedProcesses(stack.processes)).toEqual([]);
    expect(processIds(stack)).toEqual(pids);
  }, 90_000);
});
