import { type Logger, natsNames } from "@gateway/platform";
import { CatalogueChanged, type CatalogueGroup, KeyRevoked } from "@gateway/proto/events/v1/events";
import type { NatsConnection } from "nats";
import type pg from "pg";
import type { KeyCache } from "../keys/key-cache.js";

// Upserts the catalogue's groups, changing only rows that differ, and names the keys of the
// groups that changed. Groups the catalogue dropped stay: keys still name them.
const UPSERT_GROUPS = `
WITH changed AS (
  INSERT INTO ledger.model_groups (name, description, multiplier_basis_points)
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[])
  ON CONFLICT (name) DO UPDATE
    SET description = excluded.description, multiplier_basis_points = excluded.multiplier_basis_points
    WHERE (model_groups.description, model_groups.multiplier_basis_points)
      IS DISTINCT FROM (excluded.description, excluded.multiplier_basis_points)
  RETURNING name
)
SELECT key_hash FROM ledger.api_keys WHERE model_group IN (SELECT name FROM changed)`;

/** Copies the groups into ledger.model_groups; the hashes of the keys whose group changed. */
export async function copyCatalogueGroups(pool: pg.Pool, groups: CatalogueGroup[]): Promise<string[]> {
  const { rows } = await pool.query<{ key_hash: string }>(UPSERT_GROUPS, [
    groups.map((group) => group.name),
    groups.map((group) => group.description),
    groups.map((group) => group.multiplierBasisPoints),
  ]);
  return rows.map((row) => row.key_hash);
}

/**
 * Keeps ledger.model_groups in step with the catalogue, its source of truth: each
 * `catalogue.changed` carries every group, and ledger bills the multipliers it copied. A key of a
 * changed group is dropped from the Redis cache and from every edge's (the same message as a
 * revocation), so its next request reserves at the new price within seconds.
 */
export function copyCatalogueGroupsOnChange(
  nats: NatsConnection,
  namespace: string,
  pool: pg.Pool,
  cache: KeyCache,
  logger: Logger,
): void {
  const names = natsNames(namespace);
  const copy = async (groups: CatalogueGroup[]) => {
    const keyHashes = await copyCatalogueGroups(pool, groups);
    if (keyHashes.length === 0) return;
    await cache.delete(...keyHashes);
    for (const keyHash of keyHashes) nats.publish(names.keyRevokedSubject, KeyRevoked.encode({ keyHash }).finish());
    logger.info({ keys: keyHashes.length }, "model groups changed; their keys were dropped from the caches");
  };
  nats.subscribe(names.catalogueChangedSubject, {
    callback: (error, message) => {
      if (error) return logger.error({ err: error }, "catalogue change subscription failed");
      let groups: CatalogueGroup[];
      try {
        groups = CatalogueChanged.decode(message.data).groups;
      } catch (decodeError) {
        return logger.warn({ err: decodeError }, "ignored a malformed catalogue change");
      }
      copy(groups).catch((copyError: unknown) =>
        logger.error({ err: copyError }, "could not copy the catalogue's groups; the next change retries"),
      );
    },
  });
}
