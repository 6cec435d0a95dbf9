import type { Logger } from "@gateway/platform";
import { createSqlPool } from "@gateway/platform";
import type { NatsConnection } from "nats";
import type pg from "pg";
import { Catalogue, type CatalogueSources } from "../catalogue.js";
import { CatalogueHolder } from "../catalogue-holder.js";
import { pendingMigrations } from "../catalogue-migrate.js";
import { CatalogueStore } from "./catalogue-store.js";
import { announceCatalogue, CatalogueFollower } from "./follow-catalogue.js";
import { importCatalogueFile } from "./import-catalogue-file.js";
import { KeyCipher } from "./key-cipher.js";

export interface CatalogueOptions {
  // The catalogue file: imported into the store by routers, read directly when there is no store.
  path: string;
  sources: CatalogueSources;
  logger: Logger;
  nats: NatsConnection;
  namespace: string;
  // Absent: the file alone is the catalogue (no live changes).
  databaseUrl?: string;
  encryptionKey?: string;
  // How often the store's revision is checked, in case a change message was missed.
  pollMs: number;
  // Routers import the file into the store (and announce revisions); video only follows the store.
  owner: boolean;
  onSwap?: (catalogue: Catalogue) => void;
}

export interface OpenedCatalogue {
  holder: CatalogueHolder;
  // Present when the catalogue lives in Postgres.
  live?: { store: CatalogueStore; follower: CatalogueFollower; announce(revision: number): Promise<void> };
  /** SIGHUP and a changed file: re-read the file (routers import it into the store) and reload. */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** The catalogue a service serves: the store's, followed live, or the file's where there is no store. */
export async function openCatalogue(options: CatalogueOptions): Promise<OpenedCatalogue> {
  const { path, sources, logger } = options;
  const fileOnly = (): OpenedCatalogue => {
    const holder = CatalogueHolder.fromFile(path, sources, logger);
    return { holder, reload: async () => void holder.reload(), close: async () => undefined };
  };
  if (!options.databaseUrl) return fileOnly();
  const pending = await pendingMigrations(options.databaseUrl);
  if (pending.length > 0 && options.owner) {
    throw new Error(
      `the catalogue schema lacks migrations ${pending.join(", ")}: run \`pnpm --filter @gateway/router migrate\` (the migration Job in Kubernetes)`,
    );
  }
  if (pending.length > 0) {
    logger.warn("the catalogue store is not migrated yet; serving the catalogue file without live changes");
    return fileOnly();
  }
  const pool: pg.Pool = createSqlPool(options.databaseUrl, 2, logger);
  const store = new CatalogueStore(pool, options.encryptionKey ? new KeyCipher(options.encryptionKey) : undefined);
  const importFile = async () => {
    try {
      const result = await importCatalogueFile(store, path);
      if (result)
        logger.info({ path, revision: result.revision, changed: result.changed.length }, "catalogue file imported");
    } catch (error) {
      logger.error({ err: error, path }, "catalogue reload refused; the previous catalogue stays in force");
    }
  };
  if (options.owner) await importFile();
  const stored = await store.load();
  if (!stored && options.owner) {
    await pool.end();
    throw new Error(`the catalogue store is empty and ${path} could not be imported`);
  }
  const holder = stored
    ? new CatalogueHolder(Catalogue.fromData(stored.data, sources), logger)
    : CatalogueHolder.fromFile(path, sources, logger);
  holder.revision = stored?.revision;
  const follower = new CatalogueFollower(store, holder, sources, logger, options.onSwap);
  follower.start(options.nats, options.namespace, options.pollMs);
  const announce = async (revision: number) => {
    const current = await store.load();
    if (current) await announceCatalogue(options.nats, options.namespace, revision, current.data);
  };
  // Each router tells at start what it serves, so a ledger that missed a change catches up.
  if (options.owner && stored) await announce(stored.revision);
  return {
    holder,
    live: { store, follower, announce },
    async reload() {
      if (options.owner) await importFile();
      const before = holder.revision;
      await follower.refresh();
      if (options.owner && holder.revision !== undefined && holder.revision !== before) {
        await announce(holder.revision);
      }
    },
    async close() {
      follower.close();
      await pool.end();
    },
  };
}
