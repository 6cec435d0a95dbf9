import {
  accountBill,
  awayFromLimitWindowEdge,
  balanceMicrosOf,
  startTwoRouterStack,
  type TestStack,
  temporaryCatalogueWithLimits,
  vendorRequestsByRouter as vendorRequestsOf,
} from "@gateway/stack";
import OpenAI, { RateLimitError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Two routers behind one edge, which alternates its calls between them (round-robin): the
// rate limits, concurrency limits and cost reservations live in Redis, so they hold for the
// account as a whole, not per router. Per-router counting would admit up to twice the limit.
// Default group: 3 requests at once; premium: 40 requests a minute.
let stack: TestStack;
let catalogue: ReturnType<typeof temporaryCatalogueWithLimits>;

beforeAll(async () => {
  catalogue = temporaryCatalogueWithLimits({
    default: { requests_per_minute: 600, tokens_per_minute: 10_000_000, concurrent_requests: 3 },
    premium: { requests_per_minute: 40, tokens_per_minute: 50_000_000, concurrent_requests: 1024 },
  });
  stack = await startTwoRouterStack({ CATALOGUE_PATH: catalogue.path });
}, 120_000);
afterAll(async () => {
  await stack?.teardown();
  catalogue?.remove();
}, 60_000);

const clientFor = (apiKey: string) => new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });

const vendorRequestsByRouter = () => vendorRequestsOf(stack);

/** Runs `work` and answers how many requests each router sent to a vendor meanwhile. */
async function perRouter<T>(work: () => Promise<T>): Promise<{ result: T; served: number[] }> {
  const before = await vendorRequestsByRouter();
  const result = await work();
  // A stream is counted when it ends, just after its last chunk left.
  await new Promise((done) => setTimeout(done, 200));
  const after = await vendorRequestsByRouter();
  return { result, served: after.map((count, replica) => count - before[replica]!) };
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => "served" as const,
    (error: unknown) => {
      if (error instanceof RateLimitError) return error;
      throw error;
    },
  );

describe("limits with two router replicas", () => {
  it("admits exactly the account's requests per minute, however the requests spread over the routers", async () => {
    await awayFromLimitWindowEdge();
    const client = clientFor((await stack.createAccount({ group: "premium" })).api_key);
    const { result: outcomes, served } = await perRouter(() =>
      Promise.all(
        Array.from({ length: 60 }, (_, index) =>
          outcome(
            client.chat.completions.create({
              model: "gpt-4o-mini",
              max_tokens: 16,
              messages: [{ role: "user", content: `per minute ${index}` }],
            }),
          ),
        ),
      ),
    );
    const refused = outcomes.filter((answer) => answer !== "served");
    expect(outcomes.length - refused.length).toBe(40);
    for (const error of refused) expect(error).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(refused.every((error) => /requests per minute/.test(error.message))).toBe(true);
    expect(served.reduce((sum, count) => sum + count, 0)).toBe(40);
    for (const count of served) expect(count).toBeGreaterThan(0);
  });

  it("holds the account to its concurrency limit across both routers, streams opened one by one or all at once", async () => {
    const client = clientFor((await stack.createAccount()).api_key);
    // About two seconds each: all of them are open while the next ones ask.
    const slow = (index: number) =>
      client.chat.completions.create({
        model: "gpt-4o-mini",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: `slow ${index} [sim:tokens=40] [sim:token_latency_ms=50]` }],
      });
    const drain = async (stream: AsyncIterable<unknown>) => {
      for await (const _chunk of stream);
    };
    // One by one: edge alternates the routers, so the three admitted are on both, and the
    // fourth, refused, comes to a router holding one or two of them.
    const { served: oneByOne } = await perRouter(async () => {
      const open = [await slow(1), await slow(2), await slow(3)];
      const fourth = await outcome(slow(4));
      expect(fourth).toBeInstanceOf(RateLimitError);
      expect((fourth as RateLimitError).message).toContain("concurrent requests");
      await Promise.all(open.map(drain));
    });
    expect(oneByOne.reduce((sum, count) => sum + count, 0)).toBe(3);
    for (const count of oneByOne) expect(count).toBeGreaterThan(0);

    // The slots are freed as each stream's usage event leaves; then eight at once.
    await new Promise((done) => setTimeout(done, 300));
    const { result: burst } = await perRouter(async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) => slow(10 + index).then(drain, (error: unknown) => error)),
      );
      return answers.filter((answer) => answer !== undefined);
    });
    expect(burst).toHaveLength(5);
    for (const error of burst) expect(error).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
  });

  it("never lets an account with little credit, hammered through both routers, overdraw past one request's worst case", async () => {
    await awayFromLimitWindowEdge();
    // One request's worst case here is about 660 micro-yuan (premium's 1.5x); 0.01 yuan covers about 15.
    const account = await stack.createAccount({ group: "premium", creditYuan: 0.01 });
    const initial = await balanceMicrosOf(stack.databaseUrl, account.account_id);
    const post = () =>
      fetch(`${stack.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-4o-mini",
          max_tokens: 100,
          messages: [{ role: "user", content: "spend [sim:tokens=100]" }],
        }),
      });
    const { result: answers, served: byRouter } = await perRouter(() => Promise.all(Array.from({ length: 40 }, post)));
    const served = answers.filter((response) => response.status === 200);
    const refused = answers.filter((response) => response.status !== 200);
    const refusals = await Promise.all(
      refused.map(async (response) => ({ status: response.status, body: await response.json() })),
    );
    for (const refusal of refusals)
      expect(refusal).toMatchObject({ status: 429, body: { error: { code: "insufficient_quota" } } });
    expect(served.length).toBeGreaterThan(5);
    expect(served.length).toBeLessThan(40);
    for (const count of byRouter) expect(count).toBeGreaterThan(0);

    const servedIds = served.map((response) => response.headers.get("x-request-id")!);
    const {
      requestIds,
      billed,
      balance: final,
      worstCase,
    } = await accountBill(stack.databaseUrl, account.account_id, served.length);
    expect(requestIds).toEqual([...servedIds].sort());
    // Debited in the transaction that wrote the records.
    expect(initial - final).toBe(billed);
    console.log(
      `overdraft across routers: ${served.length} of 40 served (${byRouter.join(" + ")}), balance ${initial} → ${final} micro-yuan`,
    );
    expect(final).toBeGreaterThanOrEqual(-worstCase);
  });
});
