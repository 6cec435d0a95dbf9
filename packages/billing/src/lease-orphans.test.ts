import { randomUUID } from "node:crypto";
import { createLogger } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import { billingTestServers } from "../test/billing-test-servers.js";
import { billingKeys } from "./billing-keys.js";
import { LeaseOrphans } from "./lease-orphans.js";

const servers = billingTestServers();
const logger = createLogger("test", "silent");
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const farOff = String(Date.now() + 3_600_000);

// Two routers' leases and a plain reservation in one account, as the grant script writes them.
async function account(namespace: string) {
  const { redis } = servers;
  const accountId = randomUUID();
  const keys = billingKeys(namespace, accountId);
  const ids = ["lease:gone:1", "lease:gone:2", "lease:alive:1", "request-1"];
  await redis.hSet(keys.reservations, Object.fromEntries(ids.map((id) => [id, "500"])));
  await redis.zAdd(
    keys.expiries,
    ids.map((value) => ({ score: Number(farOff), value })),
  );
  await redis.hSet(keys.keyReservations("k"), { "lease:gone:1": `500:${farOff}`, "lease:alive:1": `500:${farOff}` });
  const left = async () => ({
    reservations: (await redis.hKeys(keys.reservations)).sort(),
    expiries: (await redis.zRange(keys.expiries, 0, -1)).sort(),
    key: (await redis.hKeys(keys.keyReservations("k"))).sort(),
  });
  return { accountId, left };
}

describe("LeaseOrphans", () => {
  it("drops the lease entries of a router that stopped beating, and nothing of a router still beating", async () => {
    const namespace = `orphans-${randomUUID()}`;
    const settings = { orphanMs: 1_500, holdMs: 60_000 };
    const gone = new LeaseOrphans(servers.redis, namespace, "lease:gone", settings, logger);
    const alive = new LeaseOrphans(servers.redis, namespace, "lease:alive", settings, logger);
    const { accountId, left } = await account(namespace);
    for (const router of [gone, alive]) {
      await router.track({ accountId, keyId: "k" });
      await router.beat();
    }
    const everything = await left();
    await alive.beat();
    expect(await left()).toEqual(everything);

    await sleep(1_600);
    await alive.beat();
    expect(await left()).toEqual({
      reservations: ["lease:alive:1", "request-1"],
      expiries: ["lease:alive:1", "request-1"],
      key: ["lease:alive:1"],
    });
  });

  it("drops a gone router's leases in every scope it listed, a hundred scopes a beat", async () => {
    const namespace = `orphans-${randomUUID()}`;
    const settings = { orphanMs: 500, holdMs: 60_000 };
    const gone = new LeaseOrphans(servers.redis, namespace, "lease:gone", settings, logger);
    const alive = new LeaseOrphans(servers.redis, namespace, "lease:alive", settings, logger);
    const accounts = await Promise.all(Array.from({ length: 150 }, () => account(namespace)));
    for (const { accountId } of accounts) await gone.track({ accountId, keyId: "k" });
    await gone.beat();
    await sleep(600);
    await alive.beat();
    const dropped = async () =>
      (
        await Promise.all(accounts.map(async ({ left }) => !(await left()).reservations.includes("lease:gone:1")))
      ).filter(Boolean).length;
    expect(await dropped()).toBe(100);
    await alive.beat();
    expect(await dropped()).toBe(150);
    expect(await servers.redis.zRange(`${namespace}:lease-router-beats`, 0, -1)).toEqual(["lease:alive"]);
  });
});
