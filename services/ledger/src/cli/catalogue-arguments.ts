import { type ParseArgsConfig, parseArgs } from "node:util";
import { CommandLineError } from "./command-line-error.js";

/** A change for router's catalogue admin API (its catalogue-edits.ts validates it). */
export type CatalogueEdit = { action: string } & Record<string, unknown>;

export type CatalogueCommand =
  | { kind: "catalogue-list"; what: "model" | "group" | "channel"; group: string | undefined; json: boolean }
  | {
      kind: "catalogue-change";
      edit: CatalogueEdit;
      // `model add --from FILE`: an entry (YAML or JSON) the options are laid over.
      fromFile?: string;
      json: boolean;
    }
  | { kind: "catalogue-import"; file: string; json: boolean }
  | { kind: "catalogue-history"; limit: number | undefined; json: boolean }
  | { kind: "catalogue-export"; file: string | undefined; json: boolean };

type Options = NonNullable<ParseArgsConfig["options"]>;
const text = { type: "string" } as const;
const list = { type: "string", multiple: true } as const;
const flag = { type: "boolean" } as const;

function parse<T extends Options>(command: string, args: string[], options: T, positionals: string[]) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args, options: { ...options, json: flag }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CommandLineError(`${command}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (parsed.positionals.length !== positionals.length) {
    const expected = positionals.length === 0 ? "no arguments" : positionals.join(" ");
    throw new CommandLineError(`${command} expects ${expected}, got: ${parsed.positionals.join(" ") || "nothing"}`);
  }
  const values = parsed.values as Record<string, string | string[] | boolean | undefined>;
  return { values, positionals: parsed.positionals as string[], json: values.json === true };
}

/** Yuan per million tokens ("2.5", up to 6 decimals) as the catalogue's micro-yuan per million. */
function micros(command: string, option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(value);
  if (!match) throw new CommandLineError(`${command}: --${option} must be yuan with at most 6 decimals, got ${value}`);
  return Number(match[1]) * 1_000_000 + Number((match[2] ?? "").padEnd(6, "0"));
}

function whole(command: string, option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value))
    throw new CommandLineError(`${command}: --${option} must be a whole number, got ${value}`);
  return Number(value);
}

// "a,b" and repeated options alike.
const names = (value: string | string[] | boolean | undefined) =>
  value === undefined || typeof value === "boolean"
    ? undefined
    : (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(",")).filter(Boolean);

/** "public=vendor" pairs of `--map`. */
function modelMap(command: string, value: string | string[] | boolean | undefined) {
  const pairs = names(value);
  if (!pairs) return undefined;
  return Object.fromEntries(
    pairs.map((pair) => {
      const [from, to] = pair.split("=");
      if (!from || !to) throw new CommandLineError(`${command}: --map takes PUBLIC_ID=VENDOR_ID, got ${pair}`);
      return [from, to];
    }),
  );
}

// Only what was given: the rest of the entry stays as it is (the change is a merge patch).
const defined = (fields: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(fields).filter(
      ([, value]) => value !== undefined && !(typeof value === "object" && Object.keys(value as object).length === 0),
    ),
  );

const modelOptions = {
  vendor: text,
  "context-window": text,
  "max-output": text,
  endpoints: list,
  groups: list,
  capabilities: list,
  input: text,
  output: text,
  "cache-read": text,
  "cache-write": text,
  // Required where a set price is not the dataset's to compare with (yuan-listing vendors, models it lacks).
  "price-reason": text,
  source: text,
} satisfies Options;

function modelFields(command: string, values: Record<string, string | string[] | boolean | undefined>) {
  const one = (option: string) => values[option] as string | undefined;
  return defined({
    vendor: one("vendor"),
    context_window: whole(command, "context-window", one("context-window")),
    max_output_tokens: whole(command, "max-output", one("max-output")),
    endpoints: names(values.endpoints),
    groups: names(values.groups),
    capabilities: names(values.capabilities),
    source: one("source"),
    price_reason: one("price-reason"),
    price: defined({
      input: micros(command, "input", one("input")),
      output: micros(command, "output", one("output")),
      cache_read: micros(command, "cache-read", one("cache-read")),
      cache_write: micros(command, "cache-write", one("cache-write")),
    }),
  });
}

const groupOptions = {
  description: text,
  multiplier: text,
  rpm: text,
  tpm: text,
  concurrent: text,
  "add-models": list,
  "remove-models": list,
} satisfies Options;

function groupChange(command: string, name: string, values: Record<string, string | string[] | boolean | undefined>) {
  const one = (option: string) => values[option] as string | undefined;
  const multiplier = one("multiplier");
  if (multiplier !== undefined && !/^\d{1,3}(?:\.\d{1,4})?$/.test(multiplier)) {
    throw new CommandLineError(`${command}: --multiplier is a factor like 1.5 (4 decimals at most), got ${multiplier}`);
  }
  const fields = defined({
    description: one("description"),
    multiplier_basis_points: multiplier === undefined ? undefined : Math.round(Number(multiplier) * 10_000),
    limits: defined({
      requests_per_minute: whole(command, "rpm", one("rpm")),
      tokens_per_minute: whole(command, "tpm", one("tpm")),
      concurrent_requests: whole(command, "concurrent", one("concurrent")),
    }),
  });
  const models = defined({ add: names(values["add-models"]), remove: names(values["remove-models"]) });
  return { name, ...(Object.keys(models).length > 0 && { models }), fields };
}

const channelOptions = {
  vendor: text,
  "base-url": text,
  key: list,
  "key-env": text,
  models: list,
  map: list,
  weight: text,
  priority: text,
} satisfies Options;

function channelFields(command: string, values: Record<string, string | string[] | boolean | undefined>) {
  const one = (option: string) => values[option] as string | undefined;
  return defined({
    vendor: one("vendor"),
    base_url: one("base-url"),
    api_keys: names(values.key),
    api_key_env: one("key-env"),
    models: names(values.models),
    model_map: modelMap(command, values.map),
    weight: whole(command, "weight", one("weight")),
    priority: whole(command, "priority", one("priority")),
  });
}

function required<T>(command: string, option: string, value: T | undefined): T {
  if (value === undefined) throw new CommandLineError(`${command} needs --${option}`);
  return value;
}

/** The catalogue's commands (`model`, `group`, `channel`, `catalogue`), or undefined for another word. */
export function parseCatalogueArguments(word: string, args: string[]): CatalogueCommand | undefined {
  switch (word) {
    case "model list":
    case "group list":
    case "channel list": {
      const { values, json } = parse(word, args, word === "model list" ? { group: text } : {}, []);
      const what = word.split(" ")[0] as "model" | "group" | "channel";
      return { kind: "catalogue-list", what, group: values.group as string | undefined, json };
    }
    case "model add": {
      const { values, positionals, json } = parse(word, args, { ...modelOptions, from: text }, ["MODEL_ID"]);
      const fromFile = values.from as string | undefined;
      const fields = modelFields(word, values);
      if (!fromFile) {
        required(word, "vendor", fields.vendor);
        required(word, "context-window", fields.context_window);
      }
      const entry = {
        id: positionals[0],
        created: Math.floor(Date.now() / 1000),
        ...(!fromFile && { endpoints: ["/v1/chat/completions"], groups: ["default"] }),
        ...fields,
      };
      return { kind: "catalogue-change", edit: { action: "model.add", entry }, fromFile, json };
    }
    case "model update": {
      const { values, positionals, json } = parse(word, args, modelOptions, ["MODEL_ID"]);
      const patch = modelFields(word, values);
      if (Object.keys(patch).length === 0) throw new CommandLineError(`${word}: nothing to change`);
      return { kind: "catalogue-change", edit: { action: "model.update", name: positionals[0], patch }, json };
    }
    case "model retire": {
      const options = { successor: text, serve: flag, on: text } satisfies Options;
      const { values, positionals, json } = parse(word, args, options, ["MODEL_ID"]);
      const edit = {
        action: "model.retire",
        name: positionals[0],
        successor: required(word, "successor", values.successor),
        serve: values.serve === true,
        ...(values.on !== undefined && { on: values.on }),
      };
      return { kind: "catalogue-change", edit, json };
    }
    case "group add":
    case "group update": {
      const { values, positionals, json } = parse(word, args, groupOptions, ["GROUP"]);
      const { name, models, fields } = groupChange(word, positionals[0]!, values);
      if (word === "group add") {
        const entry = { ...fields, description: required(word, "description", fields.description) };
        return { kind: "catalogue-change", edit: { action: "group.add", name, entry, models }, json };
      }
      if (Object.keys(fields).length === 0 && !models) throw new CommandLineError(`${word}: nothing to change`);
      return { kind: "catalogue-change", edit: { action: "group.update", name, patch: fields, models }, json };
    }
    case "channel add":
    case "channel update": {
      const options = word === "channel update" ? { ...channelOptions, "move-keys": flag } : channelOptions;
      const { values, positionals, json } = parse(word, args, options, ["CHANNEL"]);
      const fields = channelFields(word, values);
      if (word === "channel add") {
        required(word, "vendor", fields.vendor);
        const edit = { action: "channel.add", name: positionals[0], entry: fields };
        return { kind: "catalogue-change", edit, json };
      }
      if (Object.keys(fields).length === 0) throw new CommandLineError(`${word}: nothing to change`);
      return {
        kind: "catalogue-change",
        edit: {
          action: "channel.update",
          name: positionals[0],
          patch: fields,
          move_keys: values["move-keys"] === true,
        },
        json,
      };
    }
    case "channel disable": {
      const { values, positionals, json } = parse(word, args, { reason: text }, ["CHANNEL"]);
      const edit = {
        action: "channel.disable",
        name: positionals[0],
        reason: values.reason ?? "disabled by an operator",
      };
      return { kind: "catalogue-change", edit, json };
    }
    case "channel enable": {
      const { positionals, json } = parse(word, args, {}, ["CHANNEL"]);
      return { kind: "catalogue-change", edit: { action: "channel.enable", name: positionals[0] }, json };
    }
    case "catalogue import": {
      const { positionals, json } = parse(word, args, {}, ["FILE"]);
      return { kind: "catalogue-import", file: positionals[0]!, json };
    }
    case "catalogue history": {
      const { values, json } = parse(word, args, { limit: text }, []);
      const limit = whole(word, "limit", values.limit as string | undefined);
      if (limit !== undefined && (limit < 1 || limit > 500)) {
        throw new CommandLineError(`${word}: --limit must be from 1 to 500, got ${limit}`);
      }
      return { kind: "catalogue-history", limit, json };
    }
    case "catalogue export": {
      const { positionals, json } = parse(word, args, {}, args.some((arg) => !arg.startsWith("--")) ? ["FILE"] : []);
      return { kind: "catalogue-export", file: positionals[0], json };
    }
    default:
      return undefined;
  }
}
