import { type ParseArgsConfig, parseArgs } from "node:util";
import { LOG_CAPTURE_LEVELS } from "../accounts/log-capture.js";
import { parseYuan } from "../money.js";
import { type CatalogueCommand, parseCatalogueArguments } from "./catalogue-arguments.js";
import { type CodeCommand, parseCodeCommand } from "./code-commands.js";
import { CommandLineError } from "./command-line-error.js";
import type { FirstAdminCommand } from "./first-admin-command.js";

export type Command =
  | { kind: "help" }
  | CatalogueCommand
  | {
      kind: "account-create";
      name: string;
      group: string | undefined;
      creditYuan: string | undefined;
      readLogs: boolean;
      json: boolean;
    }
  | { kind: "account-log-capture"; accountId: string; level: LogCaptureSetting; json: boolean }
  | { kind: "account-disabled"; accountId: string; disabled: boolean; json: boolean }
  | {
      kind: "key-create";
      accountId: string;
      group: string;
      name: string | undefined;
      spendCapYuan: string | undefined;
      readLogs: boolean;
      json: boolean;
    }
  | { kind: "key-revoke"; keyId: string; json: boolean }
  | { kind: "key-list"; accountId: string; json: boolean }
  | { kind: "credit"; accountId: string; yuan: string; idempotencyKey: string | undefined; json: boolean }
  | { kind: "balance"; accountId: string; json: boolean }
  | { kind: "admin-grant"; grantee: string; role: "admin" | "support"; json: boolean }
  | FirstAdminCommand
  | { kind: "admin-revoke"; grantee: string; json: boolean }
  | { kind: "admin-list"; json: boolean }
  | {
      kind: "usage";
      accountId: string;
      limit: number | undefined;
      cursor: string | undefined;
      all: boolean;
      json: boolean;
    }
  | { kind: "catalogue-check"; file: string | undefined; json: boolean }
  | { kind: "channel-test"; channel: string; model: string | undefined; json: boolean }
  | CodeCommand;

// "default" follows the deployment's level.
const LOG_CAPTURE_SETTINGS = [...LOG_CAPTURE_LEVELS, "default"] as const;
type LogCaptureSetting = (typeof LOG_CAPTURE_SETTINGS)[number];

export { CommandLineError };

export type Options = NonNullable<ParseArgsConfig["options"]>;
export const json = { json: { type: "boolean" } } satisfies Options;
export const text = { type: "string" } as const;
const readLogs = { "read-logs": { type: "boolean" } } satisfies Options;

export type ParsedCommand<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>
>;

/** Parses one command's own arguments, naming the command in every error. */
export function parseCommand<T extends Options>(
  command: string,
  args: string[],
  options: T,
  positionals: string[],
): { values: ParsedCommand<T>["values"]; positionals: string[] } {
  let parsed: ParsedCommand<T>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CommandLineError(`${command}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (parsed.positionals.length !== positionals.length) {
    const expected = positionals.length === 0 ? "no arguments" : positionals.join(" ");
    throw new CommandLineError(`${command} expects ${expected}, got: ${parsed.positionals.join(" ") || "nothing"}`);
  }
  return { values: parsed.values, positionals: parsed.positionals as string[] };
}

export function checkYuan(command: string, value: string, minimumYuan: bigint): string {
  const parsed = parseYuan(value, minimumYuan);
  if ("error" in parsed) throw new CommandLineError(`${command}: the amount ${parsed.error}`);
  return value;
}

export function required(command: string, option: string, value: string | undefined): string {
  if (!value) throw new CommandLineError(`${command} needs --${option}`);
  return value;
}

/** A list's page options: `--limit N`, `--cursor C` (a page's next_cursor), `--all` (every page from there). */
export const paging = { limit: text, cursor: text, all: { type: "boolean" } } as const;

export function pagingOf(
  command: string,
  values: { limit?: string | undefined; cursor?: string | undefined; all?: boolean | undefined },
  maxLimit: number,
) {
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= maxLimit)) {
    throw new CommandLineError(`${command}: --limit must be a whole number from 1 to ${maxLimit}, got ${values.limit}`);
  }
  return { limit, cursor: values.cursor, all: values.all === true };
}

/** Turns `pnpm gw ...` arguments into a command, or throws a CommandLineError saying what is wrong. */
export function parseArguments(argv: string[]): Command {
  const [first, second, ...rest] = argv;
  if (first === undefined || first === "help" || first === "--help" || first === "-h") return { kind: "help" };
  const twoWords = ["account", "key", "model", "group", "channel", "catalogue", "code", "admin"].includes(first);
  const word = twoWords ? `${first} ${second ?? ""}`.trim() : first;
  const args = twoWords ? rest : argv.slice(1);
  const catalogueCommand = parseCatalogueArguments(word, args);
  if (catalogueCommand) return catalogueCommand;

  switch (word) {
    case "account create": {
      const options = { ...json, ...readLogs, name: text, group: text, credit: text } satisfies Options;
      const { values } = parseCommand(word, args, options, []);
      return {
        kind: "account-create",
        name: required(word, "name", values.name),
        group: values.group,
        creditYuan: values.credit === undefined ? undefined : checkYuan(word, values.credit, 0n),
        readLogs: values["read-logs"] === true,
        json: values.json === true,
      };
    }
    case "account disable":
    case "account enable": {
      const { values, positionals } = parseCommand(word, args, json, ["ACCOUNT_ID"]);
      const disabled = word === "account disable";
      return { kind: "account-disabled", accountId: positionals[0]!, disabled, json: values.json === true };
    }
    case "account log-capture": {
      const { values, positionals } = parseCommand(word, args, json, ["ACCOUNT_ID", "LEVEL"]);
      const level = positionals[1]!;
      if (!(LOG_CAPTURE_SETTINGS as readonly string[]).includes(level)) {
        throw new CommandLineError(`${word}: LEVEL must be one of ${LOG_CAPTURE_SETTINGS.join(", ")}, got ${level}`);
      }
      return {
        kind: "account-log-capture",
        accountId: positionals[0]!,
        level: level as LogCaptureSetting,
        json: values.json === true,
      };
    }
    case "key create": {
      const options = { ...json, ...readLogs, group: text, name: text, "spend-cap": text } satisfies Options;
      const { values, positionals } = parseCommand(word, args, options, ["ACCOUNT_ID"]);
      const spendCap = values["spend-cap"];
      return {
        kind: "key-create",
        accountId: positionals[0]!,
        group: required(word, "group", values.group),
        name: values.name,
        spendCapYuan: spendCap === undefined ? undefined : checkYuan(word, spendCap, 0n),
        readLogs: values["read-logs"] === true,
        json: values.json === true,
      };
    }
    case "key revoke": {
      const { values, positionals } = parseCommand(word, args, json, ["KEY_ID"]);
      return { kind: "key-revoke", keyId: positionals[0]!, json: values.json === true };
    }
    case "key list": {
      const { values, positionals } = parseCommand(word, args, json, ["ACCOUNT_ID"]);
      return { kind: "key-list", accountId: positionals[0]!, json: values.json === true };
    }
    case "credit": {
      const options = { ...json, "idempotency-key": text } satisfies Options;
      const { values, positionals } = parseCommand(word, args, options, ["ACCOUNT_ID", "YUAN"]);
      return {
        kind: "credit",
        accountId: positionals[0]!,
        yuan: checkYuan(word, positionals[1]!, 1n),
        idempotencyKey: values["idempotency-key"],
        json: values.json === true,
      };
    }
    case "balance": {
      const { values, positionals } = parseCommand(word, args, json, ["ACCOUNT_ID"]);
      return { kind: "balance", accountId: positionals[0]!, json: values.json === true };
    }
    case "admin grant": {
      if (args.includes("--first")) {
        const { values } = parseCommand(
          word,
          args,
          { ...json, first: { type: "boolean" }, yes: { type: "boolean" } },
          [],
        );
        return { kind: "admin-grant-first", yes: values.yes === true, json: values.json === true };
      }
      const { values, positionals } = parseCommand(word, args, { ...json, role: text }, ["IDENTITY|ACCOUNT_ID"]);
      const role = values.role ?? "admin";
      if (role !== "admin" && role !== "support") {
        throw new CommandLineError(`${word}: --role must be admin or support, got ${role}`);
      }
      return { kind: "admin-grant", grantee: positionals[0]!, role, json: values.json === true };
    }
    case "admin revoke": {
      const { values, positionals } = parseCommand(word, args, json, ["IDENTITY|ACCOUNT_ID"]);
      return { kind: "admin-revoke", grantee: positionals[0]!, json: values.json === true };
    }
    case "admin list": {
      const { values } = parseCommand(word, args, json, []);
      return { kind: "admin-list", json: values.json === true };
    }
    case "usage": {
      const { values, positionals } = parseCommand(word, args, { ...json, ...paging }, ["ACCOUNT_ID"]);
      return { kind: "usage", accountId: positionals[0]!, ...pagingOf(word, values, 1000), json: values.json === true };
    }
    case "catalogue check": {
      const { values } = parseCommand(word, args, { ...json, file: text }, []);
      return { kind: "catalogue-check", file: values.file, json: values.json === true };
    }
    case "channel test": {
      const { values, positionals } = parseCommand(word, args, { ...json, model: text }, ["NAME"]);
      return { kind: "channel-test", channel: positionals[0]!, model: values.model, json: values.json === true };
    }
    case "code create":
    case "code list":
    case "code revoke":
      return parseCodeCommand(word, args);
    default:
      throw new CommandLineError(`unknown command: ${argv.slice(0, 2).join(" ")}`);
  }
}
