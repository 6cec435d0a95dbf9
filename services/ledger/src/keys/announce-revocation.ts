import { natsNames, tracedHeaders } from "@gateway/platform";
import { KeyRevoked } from "@gateway/proto/events/v1/events";
import type { NatsConnection } from "nats";
import type { KeyCache } from "./key-cache.js";

/**
 * Makes a revocation take effect everywhere at once: drops the ledger's Redis entry and
 * tells every edge (which keeps its own in-process cache) over NATS.
 */
export function createRevocationAnnouncer(cache: KeyCache, nats: NatsConnection, namespace: string) {
  const subject = natsNames(namespace).keyRevokedSubject;
  return async (keyHash: string): Promise<void> => {
    await cache.delete(keyHash);
    nats.publish(subject, KeyRevoked.encode({ keyHash }).finish(), { headers: tracedHeaders() });
    // Wait for the server to have it, so "revoked" in the HTTP answer means announced.
    await nats.flush();
  };
}
