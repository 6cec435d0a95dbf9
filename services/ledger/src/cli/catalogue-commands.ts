import { readFileSync, writeFileSync } from "node:fs";
import { catalogueFileSchema, resolveModelPrices } from "@gateway/catalogue";
import { parse, stringify } from "yaml";
import type { AdminRequest } from "./admin-client.js";
import type { CatalogueCommand } from "./catalogue-arguments.js";
import { table } from "./table.js";

// A token price: one number, or a base with bands above a prompt length.
type TokenPrice = number | { base: number; tiers: Array<{ start: number; price: number }> };

// Router's answers, as far as the human-readable output needs them.
interface ModelEntry {
  id: string;
  vendor: string;
  groups: string[];
  // Absent: the price dataset's (`gw catalogue check` compares them).
  price?: { input: TokenPrice; output: TokenPrice; cache_read?: TokenPrice; cache_write?: TokenPrice };
  retired?: { on: string; successor: string; serve: boolean };
}
interface GroupEntry {
  description: string;
  multiplier_basis_points: number;
  limits?: { requests_per_minute?: number; tokens_per_minute?: number; concurrent_requests?: number };
}
interface ChannelEntry {
  vendor: string;
  base_url?: string;
  api_keys?: string[];
  api_key_env?: string;
  priority: number;
  weight: number;
  models?: string[];
  model_map?: Record<string, string>;
  disabled?: boolean;
  disabled_reason?: string;
}
interface CatalogueAnswer {
  revision: number;
  catalogue: {
    groups: Record<string, GroupEntry>;
    vendors: Record<string, unknown>;
    channels: Record<string, ChannelEntry>;
    models: ModelEntry[];
  } | null;
}
interface AuditEntry {
  revision: number;
  at: string;
  actor: string;
  action: string;
  kind: string;
  name: string;
}
interface ChangeAnswer {
  revision: number;
  changed: Array<{ kind: string; name: string }>;
}

const yuanPerMillion = (micros: number) => String(micros / 1_000_000);
const perMillion = (price: TokenPrice | undefined) =>
  price === undefined ? "-" : typeof price === "number" ? yuanPerMillion(price) : `${yuanPerMillion(price.base)}+bands`;
const changeLine = ({ revision, changed }: ChangeAnswer) =>
  changed.length === 0
    ? `No change; the catalogue stays at revision ${revision}.`
    : `Catalogue revision ${revision}: ${changed.map((object) => `${object.kind} ${object.name}`).join(", ")}.`;

export async function readCatalogue(
  request: AdminRequest,
): Promise<CatalogueAnswer & { catalogue: NonNullable<CatalogueAnswer["catalogue"]> }> {
  const answer = (await request("GET", "/catalogue")) as CatalogueAnswer;
  if (!answer.catalogue) throw new Error("the catalogue store is empty: import a catalogue file first");
  return { ...answer, catalogue: answer.catalogue };
}

function listing(command: Extract<CatalogueCommand, { kind: "catalogue-list" }>, answer: CatalogueAnswer) {
  const catalogue = answer.catalogue!;
  if (command.what === "model") {
    const models = catalogue.models.filter((model) => !command.group || model.groups.includes(command.group));
    // The prices in force: the entry's own, or the dataset's at the catalogue's exchange rate today.
    const file = catalogueFileSchema.parse(catalogue);
    const pricesOf = (id: string) => {
      const entry = file.models.find((model) => model.id === id);
      const resolved = entry && resolveModelPrices(entry, file, new Date());
      return resolved && "prices" in resolved ? resolved.prices : undefined;
    };
    return {
      answer: { revision: answer.revision, data: models },
      render: () =>
        [
          table([
            ["MODEL", "VENDOR", "GROUPS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "PRICED BY", "STATUS"],
            ...models.map((model) => [
              model.id,
              model.vendor,
              model.groups.join(","),
              perMillion(pricesOf(model.id)?.input),
              perMillion(pricesOf(model.id)?.output),
              perMillion(pricesOf(model.id)?.cache_read),
              perMillion(pricesOf(model.id)?.cache_write),
              model.price ? "entry" : "dataset",
              model.retired
                ? `retired ${model.retired.on}, ${model.retired.serve ? "served by" : "use"} ${model.retired.successor}`
                : "live",
            ]),
          ]),
          "(prices in yuan per million tokens, before a group's multiplier)",
        ].join("\n"),
    };
  }
  if (command.what === "group") {
    const groups = Object.entries(catalogue.groups).map(([name, group]) => ({
      name,
      ...group,
      models: catalogue.models
        .filter((model) => !model.retired && model.groups.includes(name))
        .map((model) => model.id),
    }));
    return {
      answer: { revision: answer.revision, data: groups },
      render: () =>
        table([
          ["GROUP", "MULTIPLIER", "MODELS", "RPM", "TPM", "CONCURRENT", "DESCRIPTION"],
          ...groups.map((group) => [
            group.name,
            `x${group.multiplier_basis_points / 10_000}`,
            String(group.models.length),
            String(group.limits?.requests_per_minute ?? "-"),
            String(group.limits?.tokens_per_minute ?? "-"),
            String(group.limits?.concurrent_requests ?? "-"),
            group.description,
          ]),
        ]),
    };
  }
  const channels = Object.entries(catalogue.channels).map(([name, channel]) => ({ name, ...channel }));
  return {
    answer: { revision: answer.revision, data: channels },
    render: () =>
      table([
        ["CHANNEL", "VENDOR", "BASE URL", "KEYS", "PRIORITY", "WEIGHT", "MODELS", "STATUS"],
        ...channels.map((channel) => [
          channel.name,
          channel.vendor,
          channel.base_url ?? "(vendor's)",
          channel.api_keys?.join(" ") ?? (channel.api_key_env ? `$${channel.api_key_env}` : "(vendor's env)"),
          String(channel.priority),
          String(channel.weight),
          channel.models?.map((id) => (channel.model_map?.[id] ? `${id}=${channel.model_map[id]}` : id)).join(",") ??
            "all of its vendor's",
          channel.disabled ? `disabled: ${channel.disabled_reason ?? "no reason given"}` : "enabled",
        ]),
      ]),
  };
}

/** The catalogue's commands against router's catalogue admin API. */
export async function executeCatalogueCommand(
  command: CatalogueCommand,
  request: AdminRequest,
): Promise<{ answer: unknown; render: () => string }> {
  switch (command.kind) {
    case "catalogue-list":
      return listing(command, await readCatalogue(request));
    case "catalogue-change": {
      const edit = command.fromFile
        ? {
            ...command.edit,
            entry: { ...(parse(readFileSync(command.fromFile, "utf8")) as object), ...(command.edit.entry as object) },
          }
        : command.edit;
      const answer = (await request("POST", "/catalogue/changes", edit)) as ChangeAnswer;
      return { answer, render: () => changeLine(answer) };
    }
    case "catalogue-import": {
      const catalogue = parse(readFileSync(command.file, "utf8")) as unknown;
      const answer = (await request("POST", "/catalogue/changes", {
        action: "catalogue.import",
        catalogue,
      })) as ChangeAnswer;
      return { answer, render: () => changeLine(answer) };
    }
    case "catalogue-history": {
      const query = command.limit === undefined ? "" : `?limit=${command.limit}`;
      const answer = (await request("GET", `/catalogue/changes${query}`)) as { data: AuditEntry[] };
      const render = () =>
        answer.data.length === 0
          ? "No changes yet."
          : table([
              ["REVISION", "AT", "ACTOR", "ACTION", "OBJECT"],
              ...answer.data.map((entry) => [
                String(entry.revision),
                entry.at,
                entry.actor,
                entry.action,
                `${entry.kind} ${entry.name}`,
              ]),
            ]);
      return { answer, render };
    }
    case "catalogue-export": {
      const { revision, catalogue } = await readCatalogue(request);
      // Keys never leave the store: a file names the environment variable that holds one, if any.
      const channels = Object.fromEntries(
        Object.entries(catalogue.channels).map(([name, { api_keys: _keys, ...channel }]) => [name, channel]),
      );
      const exported = { ...catalogue, channels };
      const yaml = `# The gateway's catalogue, exported at revision ${revision} (channel API keys are never exported).\n${stringify(exported)}`;
      if (command.file) writeFileSync(command.file, yaml);
      return {
        answer: { revision, catalogue: exported },
        render: () => (command.file ? `Exported revision ${revision} to ${command.file}.` : yaml.trimEnd()),
      };
    }
  }
}
