import { randomBytes } from "node:crypto";
import { loadUsageDefinition } from "@gateway/platform";
import {
  checkExactBilling,
  eventually,
  faultSuite,
  isRetryable,
  type JetStreamAsset,
  type NatsServiceUser,
  natsAuthorizationBlock,
  queryRows,
  SteadyLoad,
  spooledBytes,
  startNatsCluster,
  startTestStack,
  type TestNats,
  type TestNatsCluster,
  type TestStack,
  uniqueNamespace,
} from "@gateway/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

// The fault suite's messaging layer as production runs it: a three-node JetStream cluster, the
// usage stream (and ledger's consumer) with 3 replicas, every service connected to all three
// nodes as its own NATS user. One node is killed under steady SDK load and later restarted.
const namespace = uniqueNamespace();
const usage = loadUsageDefinition(namespace);
const stream = usage.stream.name;
const consumer = { stream, consumer: usage.consumer.durable_name };
const password = () => randomBytes(12).toString("hex");
const passwords: Record<NatsServiceUser, string> = {
  edge: password(),
  router: password(),
  ledger: password(),
  video: password(),
};
const operator = { user: "operator", password: password() };
let cluster: TestNatsCluster;
let stack: TestStack;

beforeAll(async () => {
  cluster = await startNatsCluster(3, {
    config: natsAuthorizationBlock(namespace, passwords, [operator]),
    probe: { user: operator.user, pass: operator.password },
  });
  const asService = (user: NatsServiceUser) => ({
    NATS_URL: cluster.url(),
    NATS_USER: user,
    NATS_PASSWORD: passwords[user],
  });
  stack = await startTestStack({
    namespace,
    // Only the test's teardown uses the operator.
    natsUrl: cluster.url(operator),
    env: { USAGE_SPOOL_RETRY_MS: "500", NATS_STREAM_REPLICAS: "3" },
    serviceEnv: {
      edge: asService("edge"),
      router: asService("router"),
      ledger: asService("ledger"),
      video: asService("video"),
    },
  });
}, 120_000);
afterAll(async () => {
  await stack?.teardown();
  await cluster?.remove();
});

const leaderOrNone = (asset: JetStreamAsset) =>
  cluster.leaderOf(asset).catch(() => ({ leader: undefined, allCurrent: false }));

async function allCurrent(): Promise<true | undefined> {
  const states = await Promise.all([leaderOrNone(stream), leaderOrNone(consumer)]);
  return states.every((state) => state.allCurrent) ? true : undefined;
}

/**
 * The hardest node to lose: the one ledger is connected to (the clients pick nodes at random),
 * made the leader of the usage stream (it decides every write) and of ledger's consumer (every
 * delivery and ack). Ledger must reconnect and find the consumer's new leader before it bills again.
 */
async function leaderCarryingLedger(): Promise<{ node: TestNats; clients: string[] }> {
  const clients = await Promise.all(cluster.nodes.map((node) => cluster.clientsOf(node)));
  const target = cluster.nodes[clients.findIndex((names) => names.includes("ledger"))]!;
  for (const asset of [stream, consumer]) {
    for (let attempt = 0; attempt < 12; attempt++) {
      const { leader } = await eventually(async () => {
        const found = await leaderOrNone(asset);
        return found.leader ? found : undefined;
      }, 30_000);
      if (leader === target) break;
      await cluster.stepDown(asset);
    }
  }
  const [streamLeader, consumerLeader] = await Promise.all([leaderOrNone(stream), leaderOrNone(consumer)]);
  expect(streamLeader.leader).toBe(target);
  expect(consumerLeader.leader).toBe(target);
  return { node: target, clients: clients[cluster.nodes.indexOf(target)]! };
}

it("loses no usage event when the node leading the usage stream and its consumer is killed under load, and bills every answer once", async () => {
  // Three replicas of the stream and consumer, all current (the services created them with NATS_STREAM_REPLICAS).
  await eventually(allCurrent, 30_000);
  const accounts = await Promise.all(
    [1, 2, 3].map((index) => stack.createAccount({ name: `nats-node-loss-${index}`, creditYuan: 10 })),
  );
  const load = new SteadyLoad({ baseUrl: stack.baseUrl, accounts, ratePerSecond: 3, maxRetries: 12 });
  await load.servedMore(6);
  const { node: victim, clients } = await leaderCarryingLedger();
  const victimName = cluster.nameOf(victim);

  const killedAt = Date.now();
  await victim.stop();
  let maxSpooled = 0;
  const sampler = setInterval(() => {
    maxSpooled = Math.max(maxSpooled, spooledBytes(namespace));
  }, 100);
  const electedMs = await eventually(
    async () => {
      const leaders = await Promise.all([leaderOrNone(stream), leaderOrNone(consumer)]);
      return leaders.every(({ leader }) => leader && leader !== victim) ? Date.now() - killedAt : undefined;
    },
    30_000,
    100,
  );
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + faultSuite.outageMs - Date.now())));
  const restartedAt = Date.now();
  await victim.resume();
  // The restarted node catches up from the leaders: back to three current replicas.
  await eventually(allCurrent, 60_000, 200);
  const caughtUpMs = Date.now() - restartedAt;
  await load.servedMore(6);
  const report = await load.stop();
  clearInterval(sampler);

  expect(report.failed).toEqual([]);
  const refused = report.attempts.filter((attempt) => attempt.status !== 200);
  expect(refused.filter((attempt) => !isRetryable(attempt))).toEqual([]);
  const billing = await checkExactBilling(stack.databaseUrl, report, 10_000_000n, 90_000);
  expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [] });
  expect(billing.unattributed).toBe(0);
  await eventually(async () => (spooledBytes(namespace) === 0 ? true : undefined), 30_000);

  // How far billing fell behind the answers (a record's time against its answer's end), in
  // records made before the kill and after it.
  const [lag] = await queryRows<{ before_ms: number; after_ms: number }>(
    stack.databaseUrl,
    `SELECT
       coalesce(max(extract(epoch FROM created_at - started_at) * 1000 - latency_ms)
         FILTER (WHERE created_at < to_timestamp($2 / 1000.0)), 0)::int AS before_ms,
       coalesce(max(extract(epoch FROM created_at - started_at) * 1000 - latency_ms)
         FILTER (WHERE created_at >= to_timestamp($2 / 1000.0)), 0)::int AS after_ms
     FROM ledger.usage_records WHERE account_id = ANY($1)`,
    [accounts.map((account) => account.account_id), killedAt],
  );
  // New leaders take 4-9 s (nats-server's election time-out), then ledger finds its consumer's
  // leader within a pull's expiry (5 s); nats.js's default expiry stalled billing for 30-45 s.
  expect(lag!.after_ms).toBeLessThan(25_000);
  console.log(
    `NATS node ${victimName} (leading the stream and consumer; clients ${clients.join(", ") || "none"}) killed for ` +
      `${faultSuite.outageMs / 1000} s: new leaders after ${electedMs} ms, restarted node current after ` +
      `${caughtUpMs} ms; ${load.servedCount} served, ${report.failed.length} failed, ${refused.length} refused ` +
      `attempts; ${billing.records} records, ${billing.missing.length} lost; billing lag max ` +
      `${lag!.before_ms} ms before the kill, ${lag!.after_ms} ms after; spool peak ${maxSpooled} bytes`,
  );
}, 300_000);
