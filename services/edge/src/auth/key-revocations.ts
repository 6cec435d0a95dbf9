import { type Logger, natsNames } from "@gateway/platform";
import { KeyRevoked } from "@gateway/proto/events/v1/events";
import type { NatsConnection } from "nats";
import type { KeyCache } from "./key-cache.js";

/** Drops a revoked key from this replica's cache the moment ledger announces it. */
export function evictRevokedKeys(nats: NatsConnection, namespace: string, cache: KeyCache<unknown>, logger: Logger) {
  nats.subscribe(natsNames(namespace).keyRevokedSubject, {
    callback: (error, message) => {
      if (error) return logger.error({ err: error }, "key revocation subscription failed");
      try {
        cache.delete(KeyRevoked.decode(message.data).keyHash);
      } catch (decodeError) {
        logger.warn({ err: decodeError }, "ignored a malformed key revocation");
      }
    },
  });
}
