import {
  checkExactBilling,
  eventually,
  faultSuite,
  isRetryable,
  SteadyLoad,
  spooledBytes,
  startTestStack,
  TestNats,
  TestPostgres,
  TestRedis,
  type TestStack,
} from "@gateway/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

// The fault suite: NATS, Redis and Postgres each stop under steady SDK load and come back.
// The stack gets servers of its own, so other test files running meanwhile are not affected.
let nats: TestNats;
let redis: TestRedis;
let postgres: TestPostgres;
let stack: TestStack;

beforeAll(async () => {
  [nats, redis, postgres] = await Promise.all([TestNats.start(), TestRedis.start(), TestPostgres.start()]);
  stack = await startTestStack({
    natsUrl: nats.url,
    redisUrl: redis.url,
    postgresUrl: postgres.url,
    env: { USAGE_SPOOL_RETRY_MS: "500" },
  });
}, 120_000);
afterAll(async () => {
  await stack?.teardown();
  await Promise.all([nats?.remove(), redis?.stop(), postgres?.remove()]);
});

const servers = { nats: () => nats, redis: () => redis, postgres: () => postgres };

it.each(Object.keys(servers) as (keyof typeof servers)[])(
  "refuses only retryably while %s is down, and settles every answer exactly once after it returns",
  async (name) => {
    const accounts = await Promise.all(
      [1, 2, 3].map((index) => stack.createAccount({ name: `${name}-outage-${index}`, creditYuan: 10 })),
    );
    // Enough SDK retries (0.5 s doubling to 8 s) to outlast the outage.
    const load = new SteadyLoad({ baseUrl: stack.baseUrl, accounts, ratePerSecond: 3, maxRetries: 12 });
    await load.servedMore(6);
    const server = servers[name]();
    const downAt = Date.now();
    await server.stop();
    await new Promise((resolve) => setTimeout(resolve, faultSuite.outageMs));
    await server.resume();
    const upAt = Date.now();
    await load.servedMore(6);
    const report = await load.stop();

    expect(report.failed).toEqual([]);
    const refused = report.attempts.filter((attempt) => attempt.status !== 200);
    expect(refused.filter((attempt) => !isRetryable(attempt))).toEqual([]);
    // Billing cannot reserve without Redis: the gateway says 503 rather than serve unbilled.
    if (name === "redis") {
      expect(refused.some((attempt) => attempt.status === 503 && attempt.at >= downAt && attempt.at <= upAt)).toBe(
        true,
      );
    }
    const billing = await checkExactBilling(stack.databaseUrl, report, 10_000_000n, 90_000);
    expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [] });
    expect(billing.unattributed).toBe(0);
    // Whatever waited in the spool for NATS has been published.
    await eventually(async () => (spooledBytes(stack.namespace) === 0 ? true : undefined), 30_000);
    console.log(
      `${name} down ${faultSuite.outageMs / 1000} s: ${load.servedCount} served, ` +
        `${refused.length} refused attempts (${[...new Set(refused.map((attempt) => attempt.status))].join(", ")}), ` +
        `${billing.records} records`,
    );
  },
  300_000,
);
