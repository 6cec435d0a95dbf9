import { formatYuan } from "@gateway/billing";
import type { AdminRequest } from "./admin-client.js";
import {
  CommandLineError,
  checkYuan,
  json,
  paging,
  pagingOf,
  parseCommand,
  required,
  text,
} from "./parse-arguments.js";
import { readPages } from "./run-command.js";
import { table } from "./table.js";

// `pnpm gw code create|list|revoke`: prepaid codes through the admin API (admin/routes/codes.ts).

export type CodeCommand =
  | {
      kind: "code-create";
      yuan: string;
      count: number;
      expiresAt: string | undefined;
      note: string | undefined;
      json: boolean;
    }
  | {
      kind: "code-list";
      batchId: string | undefined;
      limit: number | undefined;
      cursor: string | undefined;
      all: boolean;
      json: boolean;
    }
  | { kind: "code-revoke"; target: string; json: boolean };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** `--expires 2027-01-31` keeps the codes good through that UTC day; a full ISO time is taken as it is. */
function expiryOf(command: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = DAY.test(value) ? new Date(`${value}T23:59:59.999Z`) : new Date(value);
  if (Number.isNaN(at.getTime())) throw new CommandLineError(`${command}: --expires must be a date like 2027-01-31`);
  return at.toISOString();
}

export function parseCodeCommand(word: string, args: string[]): CodeCommand {
  switch (word) {
    case "code create": {
      const options = { ...json, amount: text, count: text, expires: text, note: text } as const;
      const { values } = parseCommand(word, args, options, []);
      const count = Number(required(word, "count", values.count));
      if (!(Number.isInteger(count) && count >= 1 && count <= 1000)) {
        throw new CommandLineError(`${word}: --count must be a whole number from 1 to 1000, got ${values.count}`);
      }
      return {
        kind: "code-create",
        yuan: checkYuan(word, required(word, "amount", values.amount), 1n),
        count,
        expiresAt: expiryOf(word, values.expires),
        note: values.note,
        json: values.json === true,
      };
    }
    case "code list": {
      const options = { ...json, ...paging };
      const { values, positionals } = parseCommand(word, args, options, positionalsOf(args, ["--limit", "--cursor"]));
      return {
        kind: "code-list",
        batchId: positionals[0],
        ...pagingOf(word, values, 500),
        json: values.json === true,
      };
    }
    default: {
      const { values, positionals } = parseCommand(word, args, json, ["CODE|CODE_ID|BATCH_ID"]);
      return { kind: "code-revoke", target: positionals[0]!, json: values.json === true };
    }
  }
}

// `code list` takes an optional BATCH_ID: a word that is neither an option nor an option's value.
const positionalsOf = (args: string[], valued: string[]) =>
  args.some((arg, index) => !arg.startsWith("--") && !valued.includes(args[index - 1] ?? "")) ? ["BATCH_ID"] : [];

interface BatchAnswer {
  batch_id: string;
  amount_micros: string;
  count: number;
  expires_at: string | null;
  note: string;
  created_at: string;
  redeemed: number;
  revoked: number;
}
interface CodeAnswer {
  code_id: string;
  code_prefix: string;
  state: string;
  redeemed_at: string | null;
  redeemed_by: string | null;
  out_trade_no: string | null;
}

const worth = (batch: BatchAnswer) =>
  `${batch.count} codes of ${formatYuan(BigInt(batch.amount_micros))} yuan, ${batch.expires_at ? `good until ${batch.expires_at}` : "never expiring"}`;

export async function executeCodeCommand(command: CodeCommand, request: AdminRequest) {
  switch (command.kind) {
    case "code-create": {
      const answer = (await request("POST", "/codes/batches", {
        yuan: command.yuan,
        count: command.count,
        expires_at: command.expiresAt,
        note: command.note,
      })) as BatchAnswer & { codes: string[] };
      const render = () =>
        [
          `Created batch ${answer.batch_id}: ${worth(answer)}. The codes (shown once, store them now):`,
          ...answer.codes,
        ].join("\n");
      return { answer, render };
    }
    case "code-list": {
      if (command.batchId) {
        const path = `/codes/batches/${encodeURIComponent(command.batchId)}`;
        const answer = (await request("GET", path)) as BatchAnswer & { codes: CodeAnswer[] };
        const render = () =>
          `Batch ${answer.batch_id}: ${worth(answer)}${answer.note ? ` (${answer.note})` : ""}\n${table([
            ["CODE ID", "PREFIX", "STATE", "REDEEMED", "BY ACCOUNT", "ORDER"],
            ...answer.codes.map((code) => [
              code.code_id,
              `${code.code_prefix}...`,
              code.state,
              code.redeemed_at ?? "-",
              code.redeemed_by ?? "-",
              code.out_trade_no ?? "-",
            ]),
          ])}`;
        return { answer, render };
      }
      const answer = await readPages<BatchAnswer>(request, "/codes/batches", command);
      const more = answer.next_cursor ? `\nMore: pnpm gw code list --cursor ${answer.next_cursor}` : "";
      const render = () =>
        answer.data.length === 0
          ? "No prepaid codes yet."
          : `${table([
              ["BATCH ID", "CREATED", "YUAN", "CODES", "REDEEMED", "REVOKED", "EXPIRES", "NOTE"],
              ...answer.data.map((batch) => [
                batch.batch_id,
                batch.created_at,
                formatYuan(BigInt(batch.amount_micros)),
                String(batch.count),
                String(batch.redeemed),
                String(batch.revoked),
                batch.expires_at ?? "never",
                batch.note,
              ]),
            ])}${more}`;
      return { answer, render };
    }
    case "code-revoke": {
      const answer = (await request("POST", "/codes/revoke", { target: command.target })) as {
        revoked_code_ids: string[];
      };
      const count = answer.revoked_code_ids.length;
      const render = () =>
        count === 0
          ? "Nothing revoked: no unused code matches."
          : `Revoked ${count} unused code${count === 1 ? "" : "s"}.`;
      return { answer, render };
    }
  }
}
