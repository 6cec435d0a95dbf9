import { callUnary, serviceClientOptions } from "@gateway/platform";
import { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { ChatRequest } from "@gateway/proto/router/v1/chat";
import { RouterServiceClient } from "@gateway/proto/router/v1/router";
import { VideoServiceClient } from "@gateway/proto/video/v1/video";
import {
  type ServiceProcess,
  serviceEntry,
  simulatorRequests,
  startService,
  startTestStack,
  type TestStack,
  testClientOptions,
} from "@gateway/stack";
import { credentials, status } from "@grpc/grpc-js";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A production stack with credentials for two vendors only. Their "real" endpoints are a
// simulator of the test's own; the stack's simulator must never answer.
let vendor: ServiceProcess;
let stack: TestStack;
let vendorUrl: string;

beforeAll(async () => {
  vendor = await startService("vendor", serviceEntry.simulator, { SIMULATOR_HOST: "127.0.0.1", SIMULATOR_PORT: "0" });
  vendorUrl = `http://127.0.0.1:${vendor.ports.http}`;
  stack = await startTestStack({
    env: {
      GATEWAY_ENV: "production",
      DEEPSEEK_API_KEY: "sk-test-deepseek",
      DEEPSEEK_BASE_URL: `${vendorUrl}/v1`,
      GEMINI_API_KEY: "test-gemini",
      GEMINI_BASE_URL: vendorUrl,
    },
  });
}, 120_000);
afterAll(async () => {
  await stack?.teardown();
  await vendor?.stop();
});

const clientOf = async () => {
  const account = await stack.createAccount({ group: "premium" });
  return new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
};

describe("in production", () => {
  it("serves a model whose vendor has credentials, from that vendor", async () => {
    const client = await clientOf();
    const answer = await client.chat.completions.create({
      model: "deepseek-chat",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    expect((await simulatorRequests(vendorUrl)).map((request) => request.path)).toContain("/v1/chat/completions");
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
  });

  it("answers 404 naming the missing credentials for a model no channel serves, streaming or not", async () => {
    const client = await clientOf();
    for (const stream of [false, true]) {
      const refused = await client.chat.completions
        .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }], stream })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toMatchObject({
        status: 404,
        code: "model_not_found",
        message: expect.stringContaining("none of its channels has vendor credentials"),
      });
    }
    const listed = (await client.models.list()).data.map((model) => model.id);
    expect(listed).toContain("deepseek-v4-flash");
    expect(listed).not.toContain("gpt-4o-mini");
    await expect(client.models.retrieve("gpt-4o-mini")).rejects.toMatchObject({ status: 404 });
  });

  it("reports the disabled channels once at start-up and in /readyz", async () => {
    const warnings = stack.processes.router.output.filter((line) =>
      line.includes("channels without vendor credentials"),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("openai-main");

    const response = await fetch(new URL("/readyz", stack.baseUrl));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { channels: Record<string, unknown> };
    expect(body.channels).toMatchObject({
      disabled: expect.arrayContaining(["openai-main", "anthropic-main"]),
      models_without_channels: expect.arrayContaining(["gpt-4o-mini"]),
      servable_models: expect.any(Number),
    });
    expect(body.channels.disabled).not.toContain("deepseek-main");
  });

  it("no longer lets image downloads reach the simulator's private address", async () => {
    const client = await clientOf();
    const refused = await client.chat.completions
      .create({
        model: "gemini-2.5-flash",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What colour?" },
              { type: "image_url", image_url: { url: `${stack.simulatorUrl}/_sim/images/red.png` } },
            ],
          },
        ],
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining("private") });
  });

  it("refuses to start a service without the service token secret", async () => {
    const started = startService("router", serviceEntry.router, {
      GATEWAY_ENV: "production",
      GATEWAY_SERVICE_TOKEN_SECRET: undefined,
      ROUTER_PORT: "0",
    });
    await expect(started).rejects.toThrow(/GATEWAY_SERVICE_TOKEN_SECRET is required in production/);
  });
});

describe("internal gRPC calls", () => {
  const address = (service: "router" | "ledger" | "video") => `127.0.0.1:${stack.processes[service].ports.grpc}`;
  const insecure = credentials.createInsecure();
  const listModelsAs = (client: RouterServiceClient) =>
    callUnary(client.listModels.bind(client), { modelGroup: "premium" }, 5_000);

  it("reach router only with edge's token", async () => {
    const asEdge = new RouterServiceClient(address("router"), insecure, testClientOptions("edge"));
    const anonymous = new RouterServiceClient(address("router"), insecure);
    const asVideo = new RouterServiceClient(address("router"), insecure, testClientOptions("video"));
    const forged = new RouterServiceClient(
      address("router"),
      insecure,
      serviceClientOptions("edge", "a-secret-the-stack-does-not-know-0123456789"),
    );
    try {
      expect((await listModelsAs(asEdge)).models.length).toBeGreaterThan(0);
      await expect(listModelsAs(anonymous)).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
      await expect(listModelsAs(forged)).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
      await expect(listModelsAs(asVideo)).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
      // A chat billed to some account, the attack the check exists for, never reaches a handler.
      const chat = callUnary(
        anonymous.createChatCompletion.bind(anonymous),
        ChatRequest.fromPartial({
          caller: { requestId: "forged", accountId: "someone-else", keyId: "k", modelGroup: "premium" },
          model: "deepseek-chat",
          messages: [{ role: "user", parts: [{ text: "bill someone else" }] }],
        }),
        5_000,
      );
      await expect(chat).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    } finally {
      for (const client of [asEdge, anonymous, asVideo, forged]) client.close();
    }
  });

  it("reach ledger's key resolution only as edge and video only as edge", async () => {
    const ledgerAsRouter = new LedgerServiceClient(address("ledger"), insecure, testClientOptions("router"));
    const videoAnonymous = new VideoServiceClient(address("video"), insecure);
    try {
      await expect(
        callUnary(ledgerAsRouter.resolveKey.bind(ledgerAsRouter), { keyHash: "0".repeat(64) }, 5_000),
      ).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
      await expect(
        callUnary(videoAnonymous.getVideo.bind(videoAnonymous), { taskId: "x" } as never, 5_000),
      ).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    } finally {
      ledgerAsRouter.close();
      videoAnonymous.close();
    }
  });
});
