import { startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Router's budget well below edge's, as when several edges send to one router.
const routerBudget = "3mb";
let stack: TestStack;
let apiKey: string;

beforeAll(async () => {
  stack = await startTestStack({
    serviceEnv: { edge: { BODY_BYTES_IN_FLIGHT: "200mb" }, router: { ROUTER_BODY_BYTES_IN_FLIGHT: routerBudget } },
  });
  ({ api_key: apiKey } = await stack.createAccount({ group: "premium" }));
});
afterAll(async () => {
  await stack?.teardown();
});

// ~1.2 MB, answered after a second, so the calls overlap in router.
const largeChat = async (stream = false) => {
  const content = `${"word ".repeat(240_000)}[sim:delay_ms=1000]`;
  const response = await fetch(`${stack.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 5, stream, messages: [{ role: "user", content }] }),
  });
  const text = await response.text();
  const error =
    response.status === 200 ? undefined : (JSON.parse(text) as { error: { code: string; type: string } }).error;
  return { status: response.status, error, text, retryAfter: response.headers.get("retry-after") };
};

describe("router's own bound on the bodies it works on at once", () => {
  it("refuses the bodies past it with edge's 429 and takes them again once the others are done", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => largeChat()));
    const refused = answers.filter(({ status }) => status === 429);
    expect(answers.filter(({ status }) => status === 200).length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThan(0);
    for (const { error, retryAfter } of refused) {
      expect(error).toMatchObject({ code: "too_many_large_requests", type: "requests" });
      expect(retryAfter).toBe("1");
    }
    expect(answers.every(({ status }) => status === 200 || status === 429)).toBe(true);
    // Every refused and finished call gave its bytes back.
    expect((await largeChat()).status).toBe(200);
  }, 60_000);

  it("refuses a stream past it before its first frame, with the same 429", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => largeChat(true)));
    const refused = answers.filter(({ status }) => status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const { error } of refused) expect(error).toMatchObject({ code: "too_many_large_requests" });
    for (const { status, text } of answers.filter(({ status }) => status !== 429)) {
      expect(status).toBe(200);
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    }
    expect((await largeChat(true)).status).toBe(200);
  }, 60_000);

  it("lets the openai SDK through: it waits out the 429's Retry-After and every request is answered", async () => {
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 8 });
    const content = `${"word ".repeat(240_000)}[sim:delay_ms=500]`;
    const completions = await Promise.all(
      Array.from({ length: 4 }, () =>
        client.chat.completions.create({ model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content }] }),
      ),
    );
    for (const completion of completions) expect(completion.choices[0]?.message.content).toBeTruthy();
  }, 60_000);
});
