import { eventually, queryRows, startTestStack, type TestStack, usageRecordOf } from "@gateway/stack";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

interface RequestLogRow {
  request_id: string;
  account_id: string;
  capture: string;
  request_body: string | null;
  response_body: string | null;
  truncated: boolean;
  error_message: string | null;
}

const requestLogsOf = (stack: TestStack, requestId: string) =>
  queryRows<RequestLogRow>(stack.databaseUrl, "SELECT * FROM ledger.request_logs WHERE request_id = $1", [requestId]);

/** The request's log entry, once ledger has stored it. */
const requestLogOf = (stack: TestStack, requestId: string) =>
  eventually(async () => (await requestLogsOf(stack, requestId))[0]);

// A made-up key in OpenAI's format, pasted into a prompt the way people do.
const secret = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zQ7";

const tools = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

/** A stack for the enclosing describe, with the given environment, and a client of a fresh account. */
function useStack(env?: NodeJS.ProcessEnv) {
  const context = {} as { stack: TestStack; client: OpenAI };
  beforeAll(async () => {
    context.stack = await startTestStack(env && { env });
    const account = await context.stack.createAccount();
    context.client = new OpenAI({ baseURL: context.stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  });
  afterAll(async () => {
    await context.stack?.teardown();
  });
  return context;
}

describe("request logs at the default capture (full)", () => {
  const context = useStack();

  it("keeps the messages and the answer of a chat, with a secret in the prompt redacted", async () => {
    const messages = [
      { role: "system" as const, content: "You check configuration files." },
      { role: "user" as const, content: `Is this line right?\nOPENAI_API_KEY=${secret}` },
    ];
    const completion = await context.client.chat.completions.create({ model: "gpt-4o-mini", messages });
    const log = await requestLogOf(context.stack, completion._request_id!);
    expect(log).toMatchObject({ capture: "full", truncated: false, error_message: null });
    expect(log.request_body).not.toContain(secret);
    expect(JSON.parse(log.request_body!)).toEqual({
      messages: [
        { role: "system", content: "You check configuration files." },
        { role: "user", content: "Is this line right?\nOPENAI_API_KEY=[redacted]" },
      ],
    });
    expect(log.response_body).not.toContain(secret);
    expect(JSON.parse(log.response_body!)).toEqual({
      choices: [
        {
          index: 0,
          content: completion.choices[0]!.message.content!.replace(secret, "[redacted]"),
          finish_reason: "stop",
        },
      ],
    });
    // The log sits beside the usage record that bills the request.
    const record = await usageRecordOf(context.stack.databaseUrl, completion._request_id!);
    expect(record.account_id).toBe(log.account_id);
  });

  it("collects a streamed answer's tool call from the chunks the client got", async () => {
    const messages = [{ role: "user" as const, content: `Weather in Paris? My token: Bearer ${secret}` }];
    const { data: stream, response } = await context.client.chat.completions
      .create({ model: "gpt-4o-mini", messages, tools, stream: true })
      .withResponse();
    const fragments = [];
    for await (const chunk of stream) fragments.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    const argumentsText = fragments.map((fragment) => fragment.function?.arguments ?? "").join("");
    expect(fragments[0]?.function?.name).toBe("get_weather");
    const log = await requestLogOf(context.stack, response.headers.get("x-request-id")!);
    expect(log.capture).toBe("full");
    expect(JSON.parse(log.request_body!)).toEqual({
      messages: [{ role: "user", content: "Weather in Paris? My token: Bearer [redacted]" }],
      tools: ["get_weather"],
    });
    const answer = JSON.parse(log.response_body!) as {
      choices: {
        index: number;
        tool_calls: { id: string; name: string; arguments: string }[];
        finish_reason: string;
      }[];
    };
    expect(answer.choices).toHaveLength(1);
    expect(answer.choices[0]).toMatchObject({ index: 0, finish_reason: "tool_calls" });
    expect(answer.choices[0]!.tool_calls).toEqual([
      { id: expect.stringMatching(/\w/), name: "get_weather", arguments: argumentsText },
    ]);
  });
  it("keeps a reasoner's thinking in the answer, streamed or not, and in the history sent back", async () => {
    const premium = await context.stack.createAccount({ group: "premium" });
    const client = new OpenAI({ baseURL: context.stack.baseUrl, apiKey: premium.api_key, maxRetries: 0 });
    type Thinking = { reasoning_content?: string };
    const ask = { role: "user" as const, content: "log my thinking" };
    const completion = await client.chat.completions.create({ model: "deepseek-reasoner", messages: [ask] });
    const reasoning = (completion.choices[0]!.message as Thinking).reasoning_content!;
    expect(reasoning.length).toBeGreaterThan(0);
    const unaryLog = await requestLogOf(context.stack, completion._request_id!);
    expect(JSON.parse(unaryLog.response_body!).choices[0]).toMatchObject({ reasoning_content: reasoning });

    const history = [
      ask,
      { role: "assistant", content: completion.choices[0]!.message.content, reasoning_content: reasoning },
      { role: "user" as const, content: "and again" },
    ] as OpenAI.ChatCompletionMessageParam[];
    const { data: stream, response } = await client.chat.completions
      .create({ model: "deepseek-reasoner", messages: history, stream: true })
      .withResponse();
    let streamed = "";
    for await (const chunk of stream)
      streamed += (chunk.choices[0]?.delta as Thinking | undefined)?.reasoning_content ?? "";
    const streamLog = await requestLogOf(context.stack, response.headers.get("x-request-id")!);
    expect(JSON.parse(streamLog.response_body!).choices[0]).toMatchObject({ reasoning_content: streamed });
    expect(JSON.parse(streamLog.request_body!).messages[1]).toMatchObject({ reasoning_content: reasoning });
  });
});

describe("request logs per account", () => {
  const context = useStack();

  async function accountWithCapture(capture: string) {
    const account = await context.stack.createAccount();
    const response = await fetch(`${context.stack.adminUrl}/admin/accounts/${account.account_id}/log-capture`, {
      method: "PUT",
      headers: { authorization: `Bearer ${context.stack.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ log_capture: capture }),
    });
    expect(response.status).toBe(200);
    return new OpenAI({ baseURL: context.stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  }
  const ask = (client: OpenAI) =>
    client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "private" }] });

  it("follows the account's own capture level over the deployment's", async () => {
    const metadataOnly = await ask(await accountWithCapture("metadata"));
    expect(await requestLogOf(context.stack, metadataOnly._request_id!)).toMatchObject({
      capture: "metadata",
      request_body: null,
      response_body: null,
    });

    const unlogged = await ask(await accountWithCapture("off"));
    await usageRecordOf(context.stack.databaseUrl, unlogged._request_id!);
    expect(await requestLogsOf(context.stack, unlogged._request_id!)).toEqual([]);
  });
});

describe("request logs at capture metadata for the deployment", () => {
  const context = useStack({ GATEWAY_REQUEST_LOG_CAPTURE: "metadata" });

  it("keeps no bodies, only the error the client saw", async () => {
    const completion = await context.client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: `Say hello ${secret}` }],
    });
    expect(await requestLogOf(context.stack, completion._request_id!)).toMatchObject({
      capture: "metadata",
      request_body: null,
      response_body: null,
      error_message: null,
    });

    const error = await context.client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "bad request [sim:status=400]" }] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(APIError);
    const { requestID, message } = error as APIError;
    const log = await requestLogOf(context.stack, requestID!);
    expect(log).toMatchObject({ capture: "metadata", request_body: null, response_body: null });
    expect(log.error_message).toMatch(/\w/);
    expect(message).toContain(log.error_message);
  });
});

describe("request logs with capture off for the deployment", () => {
  const context = useStack({ GATEWAY_REQUEST_LOG_CAPTURE: "off" });

  it("keeps no log entry, while the usage record still bills the request", async () => {
    const completion = await context.client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Say hello" }],
    });
    await usageRecordOf(context.stack.databaseUrl, completion._request_id!);
    expect(await requestLogsOf(context.stack, completion._request_id!)).toEqual([]);
  });
});
