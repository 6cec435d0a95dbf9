import type pg from "pg";
import { checkCatalogue } from "../catalogue.js";
import type { CatalogueFile, ChannelEntry } from "../catalogue-schema.js";
import { type KeyCipher, maskKey } from "./key-cipher.js";

/** A change the catalogue refused whole: nothing was written. */
export class CatalogueRefused extends Error {
  override name = "CatalogueRefused";
  constructor(readonly problems: string[]) {
    super(`the catalogue refused the change:\n  ${problems.join("\n  ")}`);
  }
}

export interface StoredCatalogue {
  revision: number;
  // API keys decrypted: for building the catalogue in memory, never for showing.
  data: CatalogueFile;
  fileSha256: string | null;
}

export interface CatalogueChange {
  actor: string;
  // What the operator did ("model.add", "catalogue.import", ...), as the audit records it.
  action: string;
  // The whole catalogue after the change, from the one in force (undefined while the store is empty).
  apply(current: CatalogueFile | undefined): unknown;
  // Set by a file import: the file's fingerprint, recorded with the change.
  fileSha256?: string;
}

export interface ChangedObject {
  kind: "setting" | "group" | "vendor" | "channel" | "model";
  name: string;
  before: unknown;
  after: unknown;
}

export interface ChangeResult {
  revision: number;
  changed: ChangedObject[];
}

type Kind = ChangedObject["kind"];
const TABLES: Record<Exclude<Kind, "model">, string> = {
  setting: "catalogue.settings",
  group: "catalogue.groups",
  vendor: "catalogue.vendors",
  channel: "catalogue.channels",
};

/** A channel as it may be shown: its keys masked. */
export function maskChannel(channel: ChannelEntry): ChannelEntry {
  return channel.api_keys ? { ...channel, api_keys: channel.api_keys.map(maskKey) } : channel;
}

/** The catalogue as an operator may see it (an export, the admin API's answer): every key masked or left out. */
export function maskedCatalogue(data: CatalogueFile): CatalogueFile {
  return {
    ...data,
    channels: Object.fromEntries(Object.entries(data.channels).map(([name, entry]) => [name, maskChannel(entry)])),
  };
}

// Postgres' jsonb keeps no key order, so entries are compared with their keys sorted.
const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : typeof value === "object" && value !== null
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([, field]) => field !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([key, field]) => [key, sortedKeys(field)]),
        )
      : value;
const same = (a: unknown, b: unknown) => JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b));

/**
 * The catalogue's source of truth in Postgres (schema `catalogue`). A change composes the whole
 * resulting catalogue, runs the one validation every catalogue passes (schema and
 * cross-references), and writes only if it passes: the objects that differ, the audit rows and
 * the next revision, in one transaction serialised on the state row.
 */
export class CatalogueStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly cipher: KeyCipher | undefined,
  ) {}

  async revision(): Promise<number> {
    const { rows } = await this.pool.query<{ revision: string }>("SELECT revision FROM catalogue.state");
    return Number(rows[0]?.revision ?? 0);
  }

  /** The catalogue in force, or undefined while nothing was ever written. */
  async load(): Promise<StoredCatalogue | undefined> {
    const client = await this.pool.connect();
    try {
      // One snapshot for every table, so a concurrent change is seen whole or not at all.
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const loaded = await this.read(client);
      await client.query("COMMIT");
      return loaded;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async change(change: CatalogueChange): Promise<ChangeResult> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT revision FROM catalogue.state FOR UPDATE");
      const current = await this.read(client);
      const checked = checkCatalogue(change.apply(current && structuredClone(current.data)));
      if (!checked.ok) throw new CatalogueRefused(checked.problems);
      const changed = diff(current?.data, checked.data);
      const revision = (current?.revision ?? 0) + (changed.length > 0 ? 1 : 0);
      if (changed.length > 0) {
        await this.write(client, checked.data, changed);
        for (const object of changed) {
          await client.query(
            `INSERT INTO catalogue.changes (revision, actor, action, kind, name, before, after)
             VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)`,
            [
              revision,
              change.actor,
              change.action,
              object.kind,
              object.name,
              auditJson(object.kind, object.before),
              auditJson(object.kind, object.after),
            ],
          );
        }
      }
      await client.query("UPDATE catalogue.state SET revision = $1, file_sha256 = coalesce($2, file_sha256)", [
        revision,
        change.fileSha256 ?? null,
      ]);
      await client.query("COMMIT");
      return { revision, changed };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The most recent audit rows, newest first. */
  async history(
    limit: number,
  ): Promise<Array<ChangedObject & { revision: number; actor: string; action: string; at: string }>> {
    const { rows } = await this.pool.query(
      `SELECT revision, actor, action, kind, name, before, after, changed_at FROM catalogue.changes
       ORDER BY id DESC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({
      revision: Number(row.revision),
      actor: row.actor,
      action: row.action,
      kind: row.kind,
      name: row.name,
      before: row.before,
      after: row.after,
      at: (row.changed_at as Date).toISOString(),
    }));
  }

  private async read(client: pg.PoolClient): Promise<StoredCatalogue | undefined> {
    const state = await client.query<{ revision: string; file_sha256: string | null }>(
      "SELECT revision, file_sha256 FROM catalogue.state",
    );
    const revision = Number(state.rows[0]?.revision ?? 0);
    if (revision === 0) return undefined;
    const entries = async (table: string, column = "entry") =>
      Object.fromEntries(
        (
          await client.query<{ name: string; entry: never }>(
            `SELECT name, ${column} AS entry FROM ${table} ORDER BY name`,
          )
        ).rows.map((row) => [row.name, row.entry]),
      );
    const channels: Record<string, ChannelEntry> = await entries(TABLES.channel);
    const keys = await client.query<{ channel: string; sealed: Buffer }>(
      "SELECT channel, sealed FROM catalogue.channel_keys ORDER BY channel, position",
    );
    for (const { channel, sealed } of keys.rows) {
      const entry = channels[channel]!;
      entry.api_keys = [...(entry.api_keys ?? []), this.requireCipher().open(channel, sealed)];
    }
    const models = await client.query<{ entry: CatalogueFile["models"][number] }>(
      "SELECT entry FROM catalogue.models ORDER BY position, id",
    );
    return {
      revision,
      fileSha256: state.rows[0]?.file_sha256 ?? null,
      data: {
        ...(await entries(TABLES.setting, "value")),
        groups: await entries(TABLES.group),
        vendors: await entries(TABLES.vendor),
        channels,
        models: models.rows.map((row) => row.entry),
      },
    };
  }

  private async write(client: pg.PoolClient, data: CatalogueFile, changed: ChangedObject[]): Promise<void> {
    const positions = new Map(data.models.map((model, index) => [model.id, index]));
    // Models whose place in the list moved are rewritten too, so an export keeps the file's order.
    const moved = await client.query<{ id: string; position: number }>("SELECT id, position FROM catalogue.models");
    const rewrite = new Set(
      moved.rows.filter((row) => positions.has(row.id) && positions.get(row.id) !== row.position).map((row) => row.id),
    );
    for (const object of changed) {
      if (object.kind === "model") rewrite.add(object.name);
    }
    for (const object of changed) {
      if (object.kind === "model") continue;
      const table = TABLES[object.kind];
      if (object.after === undefined) {
        await client.query(`DELETE FROM ${table} WHERE name = $1`, [object.name]);
        continue;
      }
      const entry =
        object.kind === "channel" ? { ...(object.after as ChannelEntry), api_keys: undefined } : object.after;
      const column = object.kind === "setting" ? "value" : "entry";
      await client.query(
        `INSERT INTO ${table} (name, ${column}) VALUES ($1, $2::jsonb)
         ON CONFLICT (name) DO UPDATE SET ${column} = excluded.${column}`,
        [object.name, JSON.stringify(entry)],
      );
      if (object.kind === "channel") await this.writeKeys(client, object.name, (object.after as ChannelEntry).api_keys);
    }
    for (const id of rewrite) {
      const model = data.models.find((entry) => entry.id === id);
      if (!model) {
        await client.query("DELETE FROM catalogue.models WHERE id = $1", [id]);
        continue;
      }
      await client.query(
        `INSERT INTO catalogue.models (id, position, entry) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (id) DO UPDATE SET position = excluded.position, entry = excluded.entry`,
        [id, positions.get(id), JSON.stringify(model)],
      );
    }
  }

  private async writeKeys(client: pg.PoolClient, channel: string, apiKeys: string[] | undefined): Promise<void> {
    await client.query("DELETE FROM catalogue.channel_keys WHERE channel = $1", [channel]);
    for (const [position, apiKey] of (apiKeys ?? []).entries()) {
      await client.query(
        "INSERT INTO catalogue.channel_keys (channel, position, sealed, masked) VALUES ($1, $2, $3, $4)",
        [channel, position, this.requireCipher().seal(channel, apiKey), maskKey(apiKey)],
      );
    }
  }

  private requireCipher(): KeyCipher {
    if (!this.cipher) {
      throw new CatalogueRefused([
        "channel API keys are stored encrypted: set CATALOGUE_ENCRYPTION_KEY (32 bytes, hex or base64)",
      ]);
    }
    return this.cipher;
  }
}

function auditJson(kind: Kind, entry: unknown): string | null {
  if (entry === undefined) return null;
  return JSON.stringify(kind === "channel" ? maskChannel(entry as ChannelEntry) : entry);
}

/** Every object that differs between two catalogues, by kind and name. */
function diff(before: CatalogueFile | undefined, after: CatalogueFile): ChangedObject[] {
  const changed: ChangedObject[] = [];
  const compare = (kind: Kind, old: Record<string, unknown>, next: Record<string, unknown>) => {
    for (const name of new Set([...Object.keys(old), ...Object.keys(next)])) {
      if (!same(old[name], next[name])) changed.push({ kind, name, before: old[name], after: next[name] });
    }
  };
  const byId = (data: CatalogueFile | undefined) => Object.fromEntries((data?.models ?? []).map((m) => [m.id, m]));
  // Whatever the document holds besides its four kinds of objects.
  const settings = (data: CatalogueFile | undefined) => {
    const { groups: _g, vendors: _v, channels: _c, models: _m, ...rest } = data ?? ({} as Partial<CatalogueFile>);
    return rest as Record<string, unknown>;
  };
  compare("setting", settings(before), settings(after));
  compare("group", before?.groups ?? {}, after.groups);
  compare("vendor", before?.vendors ?? {}, after.vendors);
  compare("channel", before?.channels ?? {}, after.channels);
  compare("model", byId(before), byId(after));
  return changed;
}
