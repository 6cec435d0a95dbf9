import { randomUUID } from "node:crypto";
import { formatYuan } from "@gateway/billing";
import type { AdminRequest } from "./admin-client.js";
import type { CatalogueCommand } from "./catalogue-arguments.js";
import { catalogueToCheck, checkCatalogue } from "./catalogue-check.js";
import { executeCatalogueCommand, readCatalogue } from "./catalogue-commands.js";
import { executeCodeCommand } from "./code-commands.js";
import { type Confirm, executeFirstAdmin } from "./first-admin-command.js";
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
interface RoleAnswer {
  grantee: string;
  role: string;
  granted_by: string;
  granted_at: string;
}
export interface List<T> {
  data: T[];
}
export interface Page<T> extends List<T> {
  has_more: boolean;
  next_cursor: string | null;
}

// The largest page every list of the admin API serves (codes and batches take at most 500).
export const ALL_PAGES_SIZE = 500;

/** One page from `cursor` on, or with `all` every page from there to the end, as one list. */
export async function readPages<T>(
  request: AdminRequest,
  path: string,
  { limit, cursor, all }: { limit: number | undefined; cursor: string | undefined; all: boolean },
): Promise<Page<T>> {
  const pageSize = limit ?? (all ? ALL_PAGES_SIZE : undefined);
  const data: T[] = [];
  for (let next = cursor; ; ) {
    const query = new URLSearchParams();
    if (pageSize !== undefined) query.set("limit", String(pageSize));
    if (next !== undefined) query.set("cursor", next);
    const page = (await request("GET", query.size > 0 ? `${path}?${query}` : path)) as Page<T>;
    data.push(...page.data);
    if (!all || !page.has_more || !page.next_cursor) return { ...page, data };
    next = page.next_cursor;
  }
}

const yuan = (micros: string) => `${formatYuan(BigInt(micros))} yuan`;
const spendCap = (micros: string | null) => (micros === null ? "no spending cap" : `spending cap ${yuan(micros)}`);
const logAccess = (readLogs: boolean) => (readLogs ? "reads request logs" : "cannot read request logs");
const shownOnce = (apiKey: string | undefined) => `API key (shown once, store it now): ${apiKey}`;

/** Whether the command talks to the admin API (the others read local files). */
export const needsAdminApi = (command: Command) =>
  command.kind !== "help" && !(command.kind === "catalogue-check" && command.file !== undefined);

export interface AdminApis {
  // Ledger's admin API: accounts, keys, credits, usage.
  ledger: AdminRequest;
  // Router's catalogue admin API: models, groups, channels, import and export.
  catalogue: AdminRequest;
  // For a command that asks before it acts (admin grant --first): the question, and what it
  // shows beside it (standard error, so --json output stays JSON alone).
  confirm?: Confirm;
  say?: (line: string) => void;
}

// Every command but `channel test`, which asks a router (channel-test.ts).
type AdminCommand = Exclude<Command, { kind: "channel-test" }>;

/** Runs one command against its admin API and returns what to print. */
export async function runCommand(command: AdminCommand, apis: AdminApis): Promise<string> {
  const { answer, render } = isCatalogueCommand(command)
    ? await executeCatalogueCommand(command, apis.catalogue)
    : command.kind === "catalogue-check"
      ? checkCatalogue(await catalogueToCheck(command.file, () => readCatalogue(apis.catalogue)))
      : command.kind === "admin-grant-first"
        ? await executeFirstAdmin(command, apis.ledger, apis.confirm ?? (async () => false), apis.say ?? (() => {}))
        : await execute(command, apis.ledger);
  return "json" in command && command.json ? JSON.stringify(answer) : render();
}

const STORE_COMMANDS: ReadonlySet<string> = new Set([
  "catalogue-list",
  "catalogue-change",
  "catalogue-import",
  "catalogue-export",
  "catalogue-history",
] satisfies CatalogueCommand["kind"][]);
const isCatalogueCommand = (command: AdminCommand): command is CatalogueCommand => STORE_COMMANDS.has(command.kind);

async function execute(
  command: Exclude<AdminCommand, CatalogueCommand | { kind: "catalogue-check" } | { kind: "admin-grant-first" }>,
  request: AdminRequest,
): Promise<{ answer: unknown; render: () => string }> {
  switch (command.kind) {
    case "code-create":
    case "code-list":
    case "code-revoke":
      return executeCodeCommand(command, request);
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
    case "account-disabled": {
      const path = `/accounts/${encodeURIComponent(command.accountId)}/${command.disabled ? "disable" : "enable"}`;
      const answer = (await request("POST", path)) as AccountAnswer & { disabled_at: string | null };
      const state = answer.disabled_at ? `disabled since ${answer.disabled_at}` : "enabled";
      return { answer, render: () => `Account ${answer.account_id} (${answer.name}): ${state}` };
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
    case "admin-grant": {
      const answer = (await request("POST", "/roles", { grantee: command.grantee, role: command.role })) as RoleAnswer;
      return { answer, render: () => `${answer.grantee} is ${answer.role} (granted ${answer.granted_at})` };
    }
    case "admin-revoke": {
      const answer = (await request("POST", "/roles/revoke", { grantee: command.grantee })) as {
        grantee: string;
        revoked: RoleAnswer | null;
      };
      const render = () =>
        answer.revoked ? `${answer.grantee} is no longer ${answer.revoked.role}` : `${answer.grantee} had no role`;
      return { answer, render };
    }
    case "admin-list": {
      const answer = (await request("GET", "/roles")) as List<RoleAnswer>;
      const render = () =>
        answer.data.length === 0
          ? "No roles granted (CONSOLE_ADMIN_IDENTITIES still makes admins)."
          : table([
              ["GRANTEE", "ROLE", "GRANTED BY", "GRANTED"],
              ...answer.data.map((grant) => [grant.grantee, grant.role, grant.granted_by, grant.granted_at]),
            ]);
      return { answer, render };
    }
    case "usage": {
      const path = `/accounts/${encodeURIComponent(command.accountId)}/usage`;
      const answer = await readPages<UsageAnswer>(request, path, command);
      const more = answer.next_cursor
        ? `\nMore: pnpm gw usage ${command.accountId} --cursor ${answer.next_cursor}`
        : "";
      const render = () =>
        answer.data.length === 0
          ? "No usage yet."
          : `${table([
              ["STARTED", "REQUEST ID", "MODEL", "TOKENS", "COST (YUAN)", "OUTCOME"],
              ...answer.data.map((record) => [
                record.started_at,
                record.request_id,
                record.model,
                String(record.total_tokens),
                formatYuan(BigInt(record.cost_micros)),
                record.outcome,
              ]),
            ])}${more}`;
      return { answer, render };
    }
  }
}
