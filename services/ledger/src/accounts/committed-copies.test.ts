import { randomUUID } from "node:crypto";
import { billingKeys } from "@gateway/billing";
import type { Redis } from "@gateway/platform";
import { connectTestRedis } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeBalanceCopy, writeKeySpentCopy } from "./committed-copies.js";

let redis: Redis;

beforeAll(async () => {
  redis = await connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

const fresh = () => ({ namespace: `copies-${randomUUID()}`, accountId: randomUUID() });

describe("committed copies in Redis", () => {
  it("keeps the balance of the newest commit whatever order the copies arrive in", async () => {
    const { namespace, accountId } = fresh();
    const balanceKey = billingKeys(namespace, accountId).balance;
    await writeBalanceCopy(redis, namespace, accountId, { micros: 900n, version: 6n });
    await writeBalanceCopy(redis, namespace, accountId, { micros: 1_000n, version: 5n });
    expect(await redis.get(balanceKey)).toBe("900");
    await writeBalanceCopy(redis, namespace, accountId, { micros: 1_500n, version: 7n });
    expect(await redis.get(balanceKey)).toBe("1500");
  });

  it("orders copies queued on one pipeline the same way", async () => {
    const { namespace, accountId } = fresh();
    const pipeline = redis.multi();
    writeBalanceCopy(pipeline, namespace, accountId, { micros: 700n, version: 9n });
    writeBalanceCopy(pipeline, namespace, accountId, { micros: 800n, version: 8n });
    await pipeline.execAsPipeline();
    expect(await redis.get(billingKeys(namespace, accountId).balance)).toBe("700");
  });

  it("keeps the larger spent total of a key, which only grows", async () => {
    const { namespace, accountId } = fresh();
    await writeKeySpentCopy(redis, namespace, accountId, "key", 50n);
    await writeKeySpentCopy(redis, namespace, accountId, "key", 40n);
    expect(await redis.get(billingKeys(namespace, accountId).keySpent("key"))).toBe("50");
    await writeKeySpentCopy(redis, namespace, accountId, "key", 60n);
    expect(await redis.get(billingKeys(namespace, accountId).keySpent("key"))).toBe("60");
  });
});
