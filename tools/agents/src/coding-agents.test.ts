import { randomUUID } from "node:crypto";
import { startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentDrivers } from "./drivers/index.js";
import { installAgents } from "./install.js";
import { fixtureFile, runAgent } from "./run-agent.js";
import { accountLedgerAfter, vendorTurnsOf } from "./turn-accounting.js";
import { type AgentName, agentNames } from "./versions.js";

// One model of each family that the default group (a new account's) may use, with an output
// ceiling above the 32000 tokens Claude Code and opencode ask for.
const modelOfFamily = {
  OpenAI: "gpt-5-mini",
  Claude: "claude-sonnet-4-6",
  Gemini: "gemini-2.5-flash",
  Grok: "grok-4-1-fast-non-reasoning",
  DeepSeek: "deepseek-v4-flash",
  Qwen: "qwen3.6-plus",
  Kimi: "kimi-k2.6",
};
const families = Object.entries(modelOfFamily).map(([family, model]) => ({ family, model }));

const creditYuan = 100;
const agentTimeoutMs = 90_000;
// The fixture's words, which only a tool result can have brought into a vendor request.
const fixtureWords = "seven blue herons";

describe("coding agents run a tool loop headless through the gateway", () => {
  let stack: TestStack;
  let binaries: Record<AgentName, string>;

  // A first run installs the four agents from the npm registry; later runs find them cached.
  beforeAll(async () => {
    [binaries, stack] = await Promise.all([installAgents(), startTestStack()]);
  }, 600_000);

  afterAll(async () => {
    await stack?.teardown();
  });

  describe.each(agentNames)("%s", (agent) => {
    it.each(families)(
      "reads a file with its tool on $family ($model), answers the result, and every turn is billed and logged",
      async ({ model }) => {
        const account = await stack.createAccount({ creditYuan });
        const marker = `run-${randomUUID()}`;
        const run = await runAgent({
          binary: binaries[agent],
          driver: agentDrivers[agent],
          gateway: { origin: new URL(stack.baseUrl).origin, apiKey: account.api_key },
          model,
          ask: `Read ${fixtureFile.name} and tell me what it says (${marker}).`,
          timeoutMs: agentTimeoutMs,
        });
        const output = `exit ${run.exitCode}\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
        expect(run.timedOut, output).toBe(false);
        expect(run.exitCode, output).toBe(0);
        expect(run.reply, output).toBeDefined();
        expect(run.reply!.error, output).toBeUndefined();
        expect(run.reply!.text, output).toMatch(/^Received tool result: \S/);

        const turns = await vendorTurnsOf(stack.simulatorUrl, marker);
        expect(turns.length).toBeGreaterThanOrEqual(2);
        expect(turns.some((turn) => JSON.stringify(turn.body).includes(fixtureWords))).toBe(true);
        const ledger = await accountLedgerAfter(stack.databaseUrl, account.account_id, turns.length);
        const billedIds = ledger.usageRecords.map((record) => record.request_id);
        expect(billedIds).toHaveLength(turns.length);
        expect(ledger.loggedRequestIds).toEqual(expect.arrayContaining(billedIds));
        expect(ledger.usageRecords.every((record) => BigInt(record.cost_micros) > 0n)).toBe(true);
        const spent = ledger.usageRecords.reduce((sum, record) => sum + BigInt(record.cost_micros), 0n);
        expect(ledger.balanceMicros).toBe(BigInt(creditYuan) * 1_000_000n - spent);
      },
      agentTimeoutMs + 30_000,
    );
  });
});
