import { randomUUID } from "node:crypto";
import { formatYuan } from "@gateway/shared";
import type { AdminRequest } from "./admin-client.js";
import type { CatalogueCommand } from "./catalogue-arguments.js";
import { executeCatalogueCommand } from "./catalogue-commands.js";
import type { Command } from "./parse-arguments.js";
import { table } from "./table.js";
import { USAGE_TEXT } from "./usage-text.js";

// The admin API's answers, as far as the human-readable output needs them (admin/serialize.ts).
interface AccountAnswer {
  account_id: string;
  name: string;
  balance_micros: string;
  log_capture: string | null;
}
interface KeyAnswer {
  key_id: string;
  name: string;
  key_prefix: string;
  group: string;
  status: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  spend_cap_micros: string | null;
  spent_micros: string;
  read_logs: boolean;
  api_key?: string;
}
interface CreditAnswer {
  amount_micros: string;
  balance_micros: string;
  replayed: boolean;
}
interface UsageAnswer {
  request_id: string;
  model: string;
  total_tokens: number;
  cost_micros: string;
  outcome: string;
  started_at: string;
}
interface List<T> {
  data: T[];
}

const yuan = (micros: string) => `${formatYuan(BigInt(micros))} yuan`;
const spendCap = (micros: string | null) => (micros === null ? "no spending cap" : `spending cap ${yuan(micros)}`);
const logAccess = (readLogs: boolean) => (readLogs ? "reads request logs" : "cannot read request logs");
const shownOnce = (apiKey: string | undefined) => `API key (shown once, store it now): ${apiKey}`;

export interface AdminApis {
  // Ledger's admin API: accounts, keys, credits, usage.
  ledger: AdminRequest;
  // Router's catalogue admin API: models, groups, channels, import and export.
  catalogue: AdminRequest;
}

/** Runs one command against its admin API and returns what to print. */
export async function runCommand(command: Command, apis: AdminApis): Promise<string> {
  const { answer, render } = isCatalogueCommand(command)
    ? await executeCatalogueCommand(command, apis.catalogue)
    : await execute(command, apis.ledger);
  return "json" in command && command.json ? JSON.stringify(answer) : render();
}

const isCatalogueCommand = (command: Command): command is CatalogueCommand => command.kind.startsWith("catalogue-");

async function execute(
  command: Exclude<Command, CatalogueCommand>,
  request: AdminRequest,
): Promise<{ answer: unknown; render: () => string }> {
  switch (command.kind) {
    case "help":
      return { answer: null, render: () => USAGE_TEXT };
    case "account-create": {
      const answer = (await request("POST", "/accounts", {
        name: command.name,
        group: command.group,
        credit_yuan: command.creditYuan,
        read_logs: command.readLogs,
      })) as AccountAnswer & KeyAnswer;
      const render = () =>
        [
          `Created account ${answer.account_id} (${answer.name}), balance ${yuan(answer.balance_micros)}`,
          `Key ${answer.key_id}, group ${answer.group}, ${logAccess(answer.read_logs)}`,
          shownOnce(answer.api_key),
        ].join("\n");
      return { answer, render };
    }
    case "account-log-capture": {
      const path = `/accounts/${encodeURIComponent(command.accountId)}/log-capture`;
      const answer = (await request("PUT", path, { log_capture: command.level })) as AccountAnswer;
      const level = answer.log_capture ?? "the deployment's default";
      return { answer, render: () => `Request logs of ${answer.account_id} (${answer.name}): ${level}` };
    }
    case "key-create": {
      const path = `/accounts/${encodeURIComponent(command.accountId)}/keys`;
      const answer = (await request("POST", path, {
        group: command.group,
        name: command.name,
        spend_cap_yuan: command.spendCapYuan,
        read_logs: command.readLogs,
      })) as KeyAnswer;
      const render = () =>
        `Created key ${answer.key_id}, group ${answer.group}, ${spendCap(answer.spend_cap_micros)}, ${logAccess(answer.read_logs)}\n${shownOnce(answer.api_key)}`;
      return { answer, render };
    }
    case "key-revoke": {
      const answer = (await request("POST", `/keys/${encodeURIComponent(command.keyId)}/revoke`)) as KeyAnswer;
      return { answer, render: () => `Revoked key ${answer.key_id} (${answer.key_prefix}...) at ${answer.revoked_at}` };
    }
    case "key-list": {
      const answer = (await request(
        "GET",
        `/accounts/${encodeURIComponent(command.accountId)}/keys`,
      )) as List<KeyAnswer>;
      const render = () =>
        answer.data.length === 0
          ? "No keys."
          : table([
              [
                "KEY ID",
                "PREFIX",
                "GROUP",
                "STATUS",
                "NAME",
                "CREATED",
                "CAP (YUAN)",
                "SPENT (YUAN)",
                "LAST USED",
                "LOGS",
              ],
              ...answer.data.map((key) => [
                key.key_id,
                key.key_prefix,
                key.group,
                key.status,
                key.name,
                key.created_at,
                key.spend_cap_micros === null ? "-" : formatYuan(BigInt(key.spend_cap_micros)),
                formatYuan(BigInt(key.spent_micros)),
                key.last_used_at ?? "never",
                key.read_logs ? "read" : "-",
              ]),
            ]);
      return { answer, render };
    }
    case "credit": {
      const answer = (await request("POST", `/accounts/${encodeURIComponent(command.accountId)}/credits`, {
        yuan: command.yuan,
        // Without a key of the user's own, this one still makes the HTTP call safe to retry.
        idempotency_key: command.idempotencyKey ?? `cli-${randomUUID()}`,
      })) as CreditAnswer;
      const render = () =>
        `${answer.replayed ? "Already credited earlier" : "Credited"} ${yuan(answer.amount_micros)}; balance ${yuan(answer.balance_micros)}`;
      return { answer, render };
    }
    case "balance": {
      const answer = (await request("GET", `/accounts/${encodeURIComponent(command.accountId)}`)) as AccountAnswer;
      return { answer, render: () => `${answer.account_id} (${answer.name}): ${yuan(answer.balance_micros)}` };
    }
    case "usage": {
      const query = command.limit === undefined ? "" : `?limit=${command.limit}`;
      const path = `/accounts/${encodeURIComponent(command.accountId)}/usage${query}`;
      const answer = (await request("GET", path)) as List<UsageAnswer>;
      const render = () =>
        answer.data.length === 0
          ? "No usage yet."
          : table([
              ["STARTED", "REQUEST ID", "MODEL", "TOKENS", "COST (YUAN)", "OUTCOME"],
              ...answer.data.map((record) => [
                record.started_at,
                record.request_id,
                record.model,
                String(record.total_tokens),
                formatYuan(BigInt(record.cost_micros)),
                record.outcome,
              ]),
            ]);
      return { answer, render };
    }
  }
}
