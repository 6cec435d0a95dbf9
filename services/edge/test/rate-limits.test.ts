import { randomUUID } from "node:crypto";
import {
  awayFromLimitWindowEdge as awayFromWindowEdge,
  queryRows,
  simulatorRequests,
  startTestStack,
  type TestStack,
  temporaryCatalogueWithLimits,
} from "@gateway/stack";
import OpenAI, { RateLimitError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The default group gets tiny limits: 3 requests and 5,000 tokens a minute, 2 at once,
// per key and per account. Every request names max_tokens, since tokens per minute counts it.
// Premium (the video models' group) gets 2 requests a minute.
let stack: TestStack;
let catalogue: ReturnType<typeof temporaryCatalogueWithLimits>;

beforeAll(async () => {
  catalogue = temporaryCatalogueWithLimits({
    default: { requests_per_minute: 3, tokens_per_minute: 5000, concurrent_requests: 2 },
    premium: { requests_per_minute: 2, tokens_per_minute: 5000000, concurrent_requests: 1024 },
  });
  stack = await startTestStack({ env: { CATALOGUE_PATH: catalogue.path } });
});
afterAll(async () => {
  await stack?.teardown();
  catalogue?.remove();
});

const clientFor = (apiKey: string) => new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });

async function newClient(): Promise<{ client: OpenAI; accountId: string }> {
  const account = await stack.createAccount();
  return { client: clientFor(account.api_key), accountId: account.account_id };
}

const ask = (client: OpenAI, content: string, maxTokens = 50) =>
  client.chat.completions.create({
    model: "gpt-4o-mini",
    max_tokens: maxTokens,
    messages: [{ role: "user", content }],
  });

async function rateLimited(promise: Promise<unknown>): Promise<RateLimitError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(RateLimitError);
  return error as RateLimitError;
}

async function vendorCalls(marker: string): Promise<number> {
  const requests = await simulatorRequests(stack.simulatorUrl);
  return requests.filter((request) => JSON.stringify(request.body).includes(marker)).length;
}

describe("rate limits", () => {
  it("refuses the request past requests per minute with 429, Retry-After and x-ratelimit headers, before any vendor call", async () => {
    await awayFromWindowEdge();
    const { client } = await newClient();
    const marker = `rpm-${randomUUID()}`;
    for (let i = 0; i < 3; i += 1) await ask(client, marker);
    const error = await rateLimited(ask(client, marker));
    expect(error.status).toBe(429);
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.type).toBe("requests");
    expect(error.message).toContain("requests per minute on this API key");
    const retryAfter = Number(error.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(Number(error.headers.get("retry-after-ms"))).toBeGreaterThan(0);
    expect(error.headers.get("x-ratelimit-limit-requests")).toBe("3");
    expect(error.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(error.headers.get("x-ratelimit-reset-requests")).toMatch(/^[\d.]+m?s$/);
    expect(error.headers.get("x-ratelimit-limit-tokens")).toBe("5000");
    expect(error.headers.get("x-ratelimit-remaining-tokens")).toMatch(/^\d+$/);
    expect(error.headers.get("x-ratelimit-reset-tokens")).toMatch(/^[\d.]+m?s$/);
    expect(await vendorCalls(marker)).toBe(3);
  });

  it("sends the x-ratelimit headers on successful answers too, JSON and streamed", async () => {
    await awayFromWindowEdge();
    const { client } = await newClient();
    const request = { model: "gpt-4o-mini", max_tokens: 50, messages: [{ role: "user" as const, content: "Hi" }] };
    const { response: json } = await client.chat.completions.create(request).withResponse();
    const { data: stream, response: streamed } = await client.chat.completions
      .create({ ...request, stream: true })
      .withResponse();
    for await (const _chunk of stream);
    for (const response of [json, streamed]) {
      expect(response.headers.get("x-ratelimit-limit-requests")).toBe("3");
      expect(response.headers.get("x-ratelimit-reset-requests")).toMatch(/^[\d.]+m?s$/);
      expect(response.headers.get("x-ratelimit-limit-tokens")).toBe("5000");
      expect(response.headers.get("x-ratelimit-reset-tokens")).toMatch(/^[\d.]+m?s$/);
    }
    expect(json.headers.get("x-ratelimit-remaining-requests")).toBe("2");
    expect(streamed.headers.get("x-ratelimit-remaining-requests")).toBe("1");
    // Each request counts its estimated prompt tokens plus max_tokens.
    const tokensLeft = [json, streamed].map((response) => Number(response.headers.get("x-ratelimit-remaining-tokens")));
    expect(tokensLeft[0]).toBeLessThanOrEqual(5000 - 50);
    expect(tokensLeft[1]).toBeLessThanOrEqual(tokensLeft[0]! - 50);
  });

  it("sends them from the other endpoints too: embeddings, streamed completions and streamed responses", async () => {
    await awayFromWindowEdge();
    const { client } = await newClient();
    const { response: embeddings } = await client.embeddings
      .create({ model: "text-embedding-3-small", input: "hello" })
      .withResponse();
    const { data: completion, response: completions } = await client.completions
      .create({ model: "gpt-4o-mini", prompt: "Say hi", max_tokens: 20, stream: true })
      .withResponse();
    for await (const _chunk of completion);
    const { data: answer, response: responses } = await client.responses
      .create({ model: "gpt-4o-mini", input: "Say hi", max_output_tokens: 20, stream: true })
      .withResponse();
    for await (const _event of answer);
    const remaining = [embeddings, completions, responses].map((response) =>
      response.headers.get("x-ratelimit-remaining-requests"),
    );
    expect(remaining).toEqual(["2", "1", "0"]);
  });

  it("refuses a request whose max_tokens passes tokens per minute", async () => {
    await awayFromWindowEdge();
    const { client } = await newClient();
    const marker = `tpm-${randomUUID()}`;
    const error = await rateLimited(ask(client, marker, 6_000));
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.type).toBe("tokens");
    expect(error.message).toContain("tokens per minute");
    expect(await vendorCalls(marker)).toBe(0);
    // Smaller requests still fit in the same minute.
    await ask(client, marker, 100);
  });

  it("refuses a third concurrent request and frees the slots when the streams end", async () => {
    const { client } = await newClient();
    const slow = (index: number) =>
      client.chat.completions.create({
        model: "gpt-4o-mini",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: `slow ${index} [sim:tokens=20] [sim:token_latency_ms=50]` }],
      });
    const streams = await Promise.all([slow(1), slow(2)]);
    const error = await rateLimited(ask(client, "third"));
    expect(error.type).toBe("requests");
    expect(error.message).toContain("concurrent requests");
    for (const stream of streams) for await (const _chunk of stream);
    // The slot is freed when the usage event leaves, just after the stream's end.
    await new Promise((done) => setTimeout(done, 200));
    const completion = await ask(client, "after the streams");
    expect(completion.choices[0]!.message.content).toMatch(/\w/);
  });

  it("shares the account's limit between its keys", async () => {
    const { client, accountId } = await newClient();
    const response = await fetch(`${stack.adminUrl}/admin/accounts/${accountId}/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ group: "default" }),
    });
    expect(response.status).toBe(201);
    const second = clientFor(((await response.json()) as { api_key: string }).api_key);
    await awayFromWindowEdge();
    await ask(client, "key one");
    await ask(client, "key one");
    await ask(second, "key two");
    const error = await rateLimited(ask(second, "key two"));
    expect(error.message).toContain("requests per minute on this account");
  });

  it("counts token counting against requests per minute, refusing before the vendor is asked", async () => {
    await awayFromWindowEdge();
    const account = await stack.createAccount();
    const marker = `count-${randomUUID()}`;
    const count = () =>
      fetch(`${stack.baseUrl}/messages/count_tokens`, {
        method: "POST",
        headers: {
          "x-api-key": account.api_key,
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
        },
        body: JSON.stringify({ model: "claude-haiku-4-5", messages: [{ role: "user", content: marker }] }),
      });
    for (let i = 0; i < 3; i += 1) expect((await count()).status).toBe(200);
    const refused = await count();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(await vendorCalls(marker)).toBe(3);
  });

  // Last: the address (127.0.0.1) is refused new keys for the rest of the minute.
  it("counts video submits against the same limits, refusing before any task exists", async () => {
    await awayFromWindowEdge();
    const account = await stack.createAccount({ group: "premium" });
    const marker = `video-${randomUUID()}`;
    const submit = () =>
      fetch(`${stack.baseUrl}/videos/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "sora-2", prompt: `${marker} [sim:video_ms=60000]`, async: true }),
      });
    expect((await submit()).status).toBe(200);
    expect((await submit()).status).toBe(200);
    const refused = await submit();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
    const tasks = await queryRows(stack.databaseUrl, "SELECT id FROM video.tasks WHERE account_id = $1", [
      account.account_id,
    ]);
    expect(tasks).toHaveLength(2);
  });
  it("slows down an address that keeps presenting invalid keys", async () => {
    const guesser = clientFor("sk-not-a-real-key");
    for (let i = 0; i < 10; i += 1) {
      await expect(guesser.models.list()).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });
    }
    const error = await rateLimited(guesser.models.list());
    expect(error.code).toBe("rate_limit_exceeded");
    expect(Number(error.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
