import { z } from "zod";
import type { CatalogueFile } from "../catalogue-schema.js";
import { resolveModelPrices } from "../model-prices.js";
import { CatalogueRefused } from "./catalogue-store.js";
import { maskKey } from "./key-cipher.js";

const objectName = z.string().min(1).max(128);
const fields = z.record(z.string(), z.unknown());
// Which models a group gains and loses (a model's `groups` lists the groups that may use it).
const groupModels = z.object({ add: z.array(objectName).default([]), remove: z.array(objectName).default([]) });

/**
 * One operator change as the admin API takes it. Entries and patches are only shaped here:
 * the whole catalogue they produce is what gets validated, by the catalogue's own schema.
 */
export const catalogueEditSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("catalogue.import"), catalogue: z.unknown() }),
  z.object({ action: z.literal("model.add"), entry: fields }),
  // A JSON merge patch (RFC 7386) of the entry: objects merge, null removes a field.
  z.object({ action: z.literal("model.update"), name: objectName, patch: fields }),
  z.object({
    action: z.literal("model.retire"),
    name: objectName,
    successor: objectName,
    serve: z.boolean(),
    on: z.string().optional(),
  }),
  z.object({ action: z.literal("group.add"), name: objectName, entry: fields, models: groupModels.optional() }),
  z.object({ action: z.literal("group.update"), name: objectName, patch: fields, models: groupModels.optional() }),
  z.object({ action: z.literal("channel.add"), name: objectName, entry: fields }),
  // move_keys: the admin confirms that the keys the channel holds go to its new address.
  z.object({ action: z.literal("channel.update"), name: objectName, patch: fields, move_keys: z.boolean().optional() }),
  // Keys added and removed one by one: an operator sees stored keys only masked, so a key to
  // remove is named by its masked form (sk-…abcd), which must match exactly one stored key.
  z.object({
    action: z.literal("channel.keys"),
    name: objectName,
    add: z.array(z.string().trim().min(8).max(500)).default([]),
    remove: z.array(z.string().min(1).max(64)).default([]),
  }),
  z.object({ action: z.literal("channel.disable"), name: objectName, reason: z.string().min(1).max(500) }),
  z.object({ action: z.literal("channel.enable"), name: objectName }),
]);

export type CatalogueEdit = z.infer<typeof catalogueEditSchema>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const merged: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = mergePatch(merged[key], value);
  }
  return merged;
}

const today = () => new Date().toISOString().slice(0, 10);

/**
 * The whole catalogue after `edit`, from the one in force. An import keeps the stored keys of a
 * channel the file names without keys (files never carry them).
 */
export function applyEdit(edit: CatalogueEdit, current: CatalogueFile | undefined): unknown {
  if (edit.action === "catalogue.import") return withStoredKeys(edit.catalogue, current);
  if (!current) throw new CatalogueRefused(["the catalogue is empty: import a catalogue file first"]);
  const next = structuredClone(current);
  const model = (id: string) => {
    const index = next.models.findIndex((entry) => entry.id === id);
    if (index < 0) throw new CatalogueRefused([`models: no model ${id}`]);
    return index;
  };
  const record = <T>(kind: "groups" | "channels", name: string, entries: Record<string, T>, exists: boolean) => {
    if (exists !== name in entries) {
      throw new CatalogueRefused([`${kind}.${name}: ${exists ? "no such entry" : "already exists"}`]);
    }
    return entries;
  };
  switch (edit.action) {
    case "model.add":
      if (next.models.some((entry) => entry.id === edit.entry.id)) {
        throw new CatalogueRefused([`models: ${String(edit.entry.id)} already exists`]);
      }
      return { ...next, models: [...next.models, edit.entry] };
    case "model.update": {
      const index = model(edit.name);
      const current = next.models[index]!;
      // A price patch on an entry priced by the dataset starts from the dataset's prices (a set price replaces them all).
      const resolved = isObject(edit.patch.price) && !current.price && resolveModelPrices(current, next, new Date());
      const base = resolved && "prices" in resolved ? { ...current, price: resolved.prices } : current;
      const models: unknown[] = [...next.models];
      models[index] = mergePatch(base, edit.patch);
      return { ...next, models };
    }
    case "model.retire": {
      const index = model(edit.name);
      const retired = { on: edit.on ?? today(), successor: edit.successor, serve: edit.serve };
      next.models[index] = { ...next.models[index]!, retired };
      return next;
    }
    case "group.add":
    case "group.update": {
      const adding = edit.action === "group.add";
      record("groups", edit.name, next.groups, !adding);
      const entry = adding ? edit.entry : mergePatch(next.groups[edit.name], edit.patch);
      const { add = [], remove = [] } = edit.models ?? {};
      for (const id of [...add, ...remove]) model(id);
      const models = next.models.map((entry) => {
        const groups = entry.groups.filter((group) => group !== edit.name || !remove.includes(entry.id));
        return add.includes(entry.id) && !groups.includes(edit.name)
          ? { ...entry, groups: [...groups, edit.name] }
          : { ...entry, groups };
      });
      return { ...next, groups: { ...next.groups, [edit.name]: entry }, models };
    }
    case "channel.add":
      record("channels", edit.name, next.channels, false);
      return { ...next, channels: { ...next.channels, [edit.name]: edit.entry } };
    case "channel.update": {
      const channels = record("channels", edit.name, next.channels, true);
      const updated = mergePatch(channels[edit.name], edit.patch);
      if (!edit.move_keys) keepKeysAtHome(edit.name, channels[edit.name]!, updated, edit.patch);
      return { ...next, channels: { ...channels, [edit.name]: updated } };
    }
    case "channel.keys": {
      const channels = record("channels", edit.name, next.channels, true);
      const channel = channels[edit.name]!;
      const kept = [...(channel.api_keys ?? [])];
      const problems: string[] = [];
      for (const masked of edit.remove) {
        const matches = kept.filter((key) => maskKey(key) === masked);
        if (matches.length === 1) kept.splice(kept.indexOf(matches[0]!), 1);
        else problems.push(`channels.${edit.name}.api_keys: ${matches.length} stored keys are ${masked}`);
      }
      if (problems.length > 0) throw new CatalogueRefused(problems);
      const api_keys = [...kept, ...edit.add.filter((key) => !kept.includes(key))];
      return { ...next, channels: { ...channels, [edit.name]: { ...channel, api_keys } } };
    }
    case "channel.disable":
    case "channel.enable": {
      const channels = record("channels", edit.name, next.channels, true);
      const disabled = edit.action === "channel.disable";
      const channel = { ...channels[edit.name]!, disabled, disabled_reason: disabled ? edit.reason : undefined };
      return { ...next, channels: { ...channels, [edit.name]: channel } };
    }
  }
}

type ChannelEntry = CatalogueFile["channels"][string];

const hostOf = (url: unknown) => (typeof url === "string" ? URL.parse(url)?.host || url : "its vendor's address");

/** Where a channel's calls go: its vendor, at its own base_url or the vendor's. */
const destinationOf = (entry: unknown) =>
  isObject(entry) ? `${String(entry.vendor)} at ${hostOf(entry.base_url)}` : "nowhere";

/**
 * A channel's keys go only to the address they were given for: a change of its vendor or
 * base_url brings keys of its own, or says (move_keys) that the keys it holds (stored, or its
 * vendor's from the environment) are to follow, which the audit then shows with both addresses.
 */
function keepKeysAtHome(name: string, before: ChannelEntry, after: unknown, patch: Record<string, unknown>): void {
  const [from, to] = [destinationOf(before), destinationOf(after)];
  if (from === to || patch.api_keys !== undefined || patch.api_key_env !== undefined) return;
  const keys = before.api_keys?.length ? "its stored keys" : "its vendor's key from the environment";
  throw new CatalogueRefused([
    `channels.${name}: moving it from ${from} to ${to} would send ${keys} there; give the keys for the new address (api_keys) or confirm the move (move_keys)`,
  ]);
}

/** A file's channels with the keys stored for them, where the file keeps each one where it was. */
function withStoredKeys(file: unknown, current: CatalogueFile | undefined): unknown {
  if (!isObject(file) || !isObject(file.channels) || !current) return file;
  const problems: string[] = [];
  const channels = Object.fromEntries(
    Object.entries(file.channels).map(([name, entry]) => {
      const stored = current.channels[name];
      if (!isObject(entry) || entry.api_keys !== undefined || !stored?.api_keys) return [name, entry];
      if (destinationOf(entry) !== destinationOf(stored)) {
        problems.push(`channels.${name}: the file moves it to ${destinationOf(entry)}; give its keys for that address`);
      }
      return [name, { ...entry, api_keys: stored.api_keys }];
    }),
  );
  if (problems.length > 0) throw new CatalogueRefused(problems);
  return { ...file, channels };
}
