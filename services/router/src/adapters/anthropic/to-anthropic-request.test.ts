import type { CatalogueModel } from "@gateway/catalogue";
import type { ChatRequest, Message } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { toAnthropicRequest, toAnthropicTemperature } from "./to-anthropic-request.js";

const model = (defaultMaxTokens: number | undefined = 4096) =>
  ({ id: "claude-sonnet-4-5", default_max_tokens: defaultMaxTokens, capabilities: [] }) as unknown as CatalogueModel;

const message = (role: string, text: string | undefined, extra: Partial<Message> = {}): Message => ({
  role,
  text,
  parts: [],
  toolCalls: [],
  ...extra,
});

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  caller: undefined,
  model: "claude-sonnet-4-5",
  anthropicBeta: [],
  anthropicExtraJson: "",
  messages: [message("user", "hi")],
  tools: [],
  stop: [],
  stream: false,
  includeUsage: false,
  extraJson: "",
  ...overrides,
});

const weather = { name: "get_weather", description: "Weather", parametersJson: '{"type":"object","properties":{}}' };
const time = { name: "get_time", parametersJson: undefined };
const untyped = { name: "lookup", parametersJson: '{"properties":{"q":{"type":"string"}}}' };

describe("canonical request to an Anthropic Messages body", () => {
  it("sends a plain chat with the catalogue's default max_tokens", () => {
    expect(toAnthropicRequest(request(), model())).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("always sends max_tokens: the client's, else the model's default, else 4096", () => {
    expect(toAnthropicRequest(request({ maxTokens: 100 }), model()).max_tokens).toBe(100);
    expect(toAnthropicRequest(request(), model(2048)).max_tokens).toBe(2048);
    expect(toAnthropicRequest(request(), model(undefined)).max_tokens).toBe(4096);
  });

  it("moves system and developer messages to a top-level system string", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          message("system", "You are terse."),
          message("developer", undefined, { parts: [{ text: "Answer in French." }] }),
          message("user", "hi"),
        ],
      }),
      model(),
    );
    expect(body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: "You are terse.\n\nAnswer in French.",
      messages: [{ role: "user", content: "hi" }],
    });
  });

  it("maps image URLs and data URLs to image blocks", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          message("user", undefined, {
            parts: [
              { text: "Compare these" },
              { imageUrl: { url: "https://example.com/cat.png", detail: "high" } },
              { imageUrl: { url: "data:image/PNG;base64,iVBORw0KGgo=" } },
            ],
          }),
        ],
      }),
      model(),
    );
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Compare these" },
          { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        ],
      },
    ]);
  });

  it("refuses image types Anthropic does not read", () => {
    const svg = request({
      messages: [message("user", undefined, { parts: [{ imageUrl: { url: "data:image/svg+xml;base64,PHN2Zz4=" } }] })],
    });
    expect(() => toAnthropicRequest(svg, model())).toThrow(expect.objectContaining({ httpStatus: 400 }));
  });

  it("maps tools, making every input_schema an object schema", () => {
    const body = toAnthropicRequest(request({ tools: [weather, time, untyped] }), model());
    expect(body.tools).toEqual([
      { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: {} } },
      { name: "get_time", input_schema: { type: "object", properties: {} } },
      { name: "lookup", input_schema: { type: "object", properties: { q: { type: "string" } } } },
    ]);
    expect(body).not.toHaveProperty("tool_choice");
  });

  it.each([
    [{ mode: "auto" }, undefined, { type: "auto" }],
    [{ mode: "none" }, undefined, { type: "none" }],
    [{ mode: "required" }, undefined, { type: "any" }],
    [{ mode: "function", functionName: "get_time" }, undefined, { type: "tool", name: "get_time" }],
    [undefined, false, { type: "auto", disable_parallel_tool_use: true }],
    [{ mode: "required" }, false, { type: "any", disable_parallel_tool_use: true }],
    [
      { mode: "function", functionName: "get_time" },
      false,
      { type: "tool", name: "get_time", disable_parallel_tool_use: true },
    ],
    [{ mode: "none" }, false, { type: "none" }],
    [{ mode: "auto" }, true, { type: "auto" }],
  ])("maps tool_choice %j with parallel_tool_calls %s", (toolChoice, parallelToolCalls, expected) => {
    const body = toAnthropicRequest(request({ tools: [weather, time], toolChoice, parallelToolCalls }), model());
    expect(body.tool_choice).toEqual(expected);
  });

  it("replays a tool loop: tool_use blocks, then all results in one user turn", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          message("system", "Be brief."),
          message("user", "Weather and time in Paris?"),
          message("assistant", "Let me check.", {
            toolCalls: [
              { id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
              { id: "toolu_2", name: "get_time", arguments: "" },
            ],
          }),
          message("tool", "18C and sunny", { toolCallId: "toolu_1" }),
          message("tool", undefined, { toolCallId: "toolu_2", parts: [{ text: "09:00" }] }),
          message("user", "Thanks. And tomorrow?"),
        ],
        tools: [weather, time],
      }),
      model(),
    );
    expect(body.system).toBe("Be brief.");
    expect(body.messages).toEqual([
      { role: "user", content: "Weather and time in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_time", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "18C and sunny" },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "09:00" }] },
          { type: "text", text: "Thanks. And tomorrow?" },
        ],
      },
    ]);
  });

  it("leaves out an assistant turn's empty text and merges consecutive same-role turns", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          message("user", "one"),
          message("user", "two"),
          message("assistant", "", { toolCalls: [{ id: "t", name: "get_time", arguments: "{}" }] }),
          message("tool", "ok", { toolCallId: "t" }),
        ],
      }),
      model(),
    );
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "get_time", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "ok" }] },
    ]);
  });

  it("refuses tool-call arguments that are not a JSON object with a clear 400", () => {
    const broken = request({
      messages: [
        message("user", "hi"),
        message("assistant", undefined, { toolCalls: [{ id: "c1", name: "f", arguments: "{not json" }] }),
      ],
    });
    expect(() => toAnthropicRequest(broken, model())).toThrow(
      expect.objectContaining({
        httpStatus: 400,
        param: "messages[1].tool_calls",
        message: expect.stringMatching(/c1/),
      }),
    );
  });

  it("halves temperature into Anthropic's 0-1 range and keeps top_p only without it", () => {
    expect(toAnthropicTemperature(0)).toBe(0);
    expect(toAnthropicTemperature(0.8)).toBe(0.4);
    expect(toAnthropicTemperature(2)).toBe(1);
    expect(toAnthropicRequest(request({ temperature: 1.4, topP: 0.9 }), model())).toMatchObject({ temperature: 0.7 });
    expect(toAnthropicRequest(request({ temperature: 1.4, topP: 0.9 }), model())).not.toHaveProperty("top_p");
    expect(toAnthropicRequest(request({ topP: 0.9 }), model())).toMatchObject({ top_p: 0.9 });
  });

  it("maps stop, stream, user and thinking; drops what Anthropic lacks", () => {
    const body = toAnthropicRequest(
      request({
        stop: ["END"],
        stream: true,
        includeUsage: true,
        user: "user-7",
        seed: 3,
        presencePenalty: 1,
        extraJson: '{"thinking":{"type":"enabled","budget_tokens":1024},"reasoning_effort":"low"}',
      }),
      model(),
    );
    expect(body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      messages: [{ role: "user", content: "hi" }],
      stop_sequences: ["END"],
      stream: true,
      metadata: { user_id: "user-7" },
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
  });

  it("refuses n > 1, which Anthropic cannot give", () => {
    expect(() => toAnthropicRequest(request({ n: 2 }), model())).toThrow(
      expect.objectContaining({ httpStatus: 400, param: "n" }),
    );
    expect(toAnthropicRequest(request({ n: 1 }), model())).not.toHaveProperty("n");
  });

  it("asks for JSON through the system prompt, with the schema when given", () => {
    const jsonObject = toAnthropicRequest(
      request({
        messages: [message("system", "Be brief."), message("user", "hi")],
        responseFormat: { type: "json_object" },
      }),
      model(),
    );
    expect(jsonObject.system).toMatch(/^Be brief\.\n\nRespond with a single valid JSON value/);
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const jsonSchema = toAnthropicRequest(
      request({
        responseFormat: { type: "json_schema", jsonSchemaJson: JSON.stringify({ name: "answer", schema }) },
      }),
      model(),
    );
    expect(jsonSchema.system).toContain(JSON.stringify(schema));
    expect(toAnthropicRequest(request({ responseFormat: { type: "text" } }), model())).not.toHaveProperty("system");
  });

  it("keeps cache breakpoints on system, tool, message and tool-result blocks", () => {
    const ephemeral = { type: "ephemeral" };
    const body = toAnthropicRequest(
      request({
        messages: [
          message("system", undefined, { parts: [{ text: "long rules", cacheControl: ephemeral }] }),
          message("user", undefined, { parts: [{ text: "question", cacheControl: { type: "ephemeral", ttl: "1h" } }] }),
          message("assistant", undefined, { toolCalls: [{ id: "toolu_1", name: "get_weather", arguments: "{}" }] }),
          message("tool", "sunny", { toolCallId: "toolu_1", isError: true, cacheControl: ephemeral }),
        ],
        tools: [{ ...weather, cacheControl: ephemeral }],
      }),
      model(),
    );
    expect(body.system).toEqual([{ type: "text", text: "long rules", cache_control: ephemeral }]);
    expect(body.tools).toEqual([expect.objectContaining({ name: "get_weather", cache_control: ephemeral })]);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "question", cache_control: { type: "ephemeral", ttl: "1h" } }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "sunny", is_error: true, cache_control: ephemeral },
        ],
      },
    ]);
  });

  it("sends thinking back as it came, signed or redacted, ahead of the tool calls", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          message("user", "go"),
          message("assistant", undefined, {
            parts: [
              { thinking: { thinking: "plan", signature: "sig" } },
              { thinking: { thinking: "", redactedData: "xyz" } },
            ],
            toolCalls: [{ id: "toolu_1", name: "get_weather", arguments: "{}" }],
            reasoningContent: "plan",
          }),
        ],
      }),
      model(),
    );
    expect((body.messages as { content: unknown }[])[1]!.content).toEqual([
      { type: "thinking", thinking: "plan", signature: "sig" },
      { type: "redacted_thinking", data: "xyz" },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} },
    ]);
  });

  it("sends documents, top_k and Claude-only settings", () => {
    const body = toAnthropicRequest(
      request({
        messages: [
          message("user", undefined, {
            parts: [
              { document: { sourceType: "base64", mediaType: "application/pdf", data: "JVBERi0=", title: "Spec" } },
              { document: { sourceType: "text", data: "plain" } },
            ],
          }),
        ],
        topK: 3,
        anthropicExtraJson: '{"output_config":{"effort":"low"}}',
      }),
      model(),
    );
    expect(body).toMatchObject({ top_k: 3, output_config: { effort: "low" } });
    expect((body.messages as { content: unknown }[])[0]!.content).toEqual([
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, title: "Spec" },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "plain" } },
    ]);
  });

  it("turns reasoning_effort into a thinking budget, raising max_tokens above it", () => {
    expect(toAnthropicRequest(request({ reasoningEffort: "low", maxTokens: 500 }), model())).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 2048 },
      max_tokens: 2548,
    });
    expect(toAnthropicRequest(request({ thinking: { type: "adaptive" } }), model())).toMatchObject({
      thinking: { type: "adaptive" },
      max_tokens: 4096,
    });
  });

  it("raises a thinking budget below Anthropic's 1024 floor (Gemini's thinkingBudget may be any size) to the floor", () => {
    const small = { type: "enabled", budgetTokens: 200 };
    expect(toAnthropicRequest(request({ thinking: small, maxTokens: 300 }), model())).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 1024 },
      max_tokens: 1324,
    });
  });
});

describe("a Messages client's own Claude request (Claude Code)", () => {
  const conversation = [
    message("system", "You are Claude Code"),
    message("user", "list the files"),
    message("system", "<system-reminder>plan mode is off</system-reminder>"),
  ];

  it("keeps a system message after a user turn where the client put it", () => {
    const body = toAnthropicRequest(request({ messages: conversation, clientEndpoint: "/v1/messages" }), model());
    expect(body.system).toBe("You are Claude Code");
    expect(body.messages).toEqual([
      { role: "user", content: "list the files" },
      { role: "system", content: "<system-reminder>plan mode is off</system-reminder>" },
    ]);
  });

  it("moves every system message into the system prompt for other ingresses, whose models may predate them", () => {
    const body = toAnthropicRequest(request({ messages: conversation }), model());
    expect(body.system).toBe("You are Claude Code\n\n<system-reminder>plan mode is off</system-reminder>");
    expect(body.messages).toEqual([{ role: "user", content: "list the files" }]);
  });

  it("sends server tools and cache scopes as the client wrote them", () => {
    const server = { type: "web_search_20250305", name: "web_search", max_uses: 5 };
    const body = toAnthropicRequest(
      request({
        tools: [
          { ...weather, cacheControl: { type: "ephemeral", scope: "global" } },
          { name: "web_search", anthropicToolJson: JSON.stringify(server) },
        ],
      }),
      model(),
    );
    expect(body.tools).toEqual([
      {
        name: "get_weather",
        description: "Weather",
        input_schema: { type: "object", properties: {} },
        cache_control: { type: "ephemeral", scope: "global" },
      },
      server,
    ]);
  });
});

describe("models that think only adaptively (Claude Opus 4.7 on)", () => {
  const opus = {
    ...model(),
    id: "claude-opus-4-7",
    thinking: "adaptive",
    refuses: ["temperature", "top_p", "top_k"],
  } as CatalogueModel;

  it("asks for adaptive thinking with an effort instead of a budget, leaving max_tokens as it is", () => {
    expect(toAnthropicRequest(request({ reasoningEffort: "minimal", maxTokens: 500 }), opus)).toMatchObject({
      thinking: { type: "adaptive" },
      output_config: { effort: "low" },
      max_tokens: 500,
    });
    const budgeted = toAnthropicRequest(request({ thinking: { type: "enabled", budgetTokens: 8000 } }), opus);
    expect(budgeted).toMatchObject({ thinking: { type: "adaptive" }, output_config: { effort: "medium" } });
    expect(budgeted.thinking).not.toHaveProperty("budget_tokens");
  });

  it("leaves thinking out when the request turns it off or asks for none, since these models refuse disabling it", () => {
    for (const overrides of [{ thinking: { type: "disabled" } }, { reasoningEffort: "none" }, {}]) {
      const body = toAnthropicRequest(request(overrides), opus);
      expect(body).not.toHaveProperty("thinking");
      expect(body).not.toHaveProperty("output_config");
    }
  });

  it("leaves out the sampling parameters the model refuses", () => {
    const body = toAnthropicRequest(request({ temperature: 0.4, topP: 0.9, topK: 5 }), opus);
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("top_p");
    expect(body).not.toHaveProperty("top_k");
  });
});

describe("Claude 5 models, each with its own way of (not) turning thinking off", () => {
  const claude5 = (id: string, thinking: CatalogueModel["thinking"], refuses: CatalogueModel["refuses"] = []) =>
    ({ ...model(), id, thinking, refuses: ["temperature", "top_p", "top_k", ...(refuses ?? [])] }) as CatalogueModel;
  const off = [{ thinking: { type: "disabled" } }, { reasoningEffort: "none" }];

  it("sends nothing when nothing is asked, so the model's own default applies", () => {
    for (const mode of ["adaptive_on", "between_tools", "always"] as const) {
      const body = toAnthropicRequest(request(), claude5("claude-x", mode));
      expect(body, mode).not.toHaveProperty("thinking");
      expect(body, mode).not.toHaveProperty("output_config");
    }
  });

  it("turns thinking off with disabled where the model takes it (Opus 5, Sonnet 5, Haiku 5.5)", () => {
    for (const overrides of off) {
      expect(toAnthropicRequest(request(overrides), claude5("claude-opus-5", "adaptive_on")).thinking).toEqual({
        type: "disabled",
      });
    }
  });

  it("sends between_tools for no thinking on Sonnet 5.5, which refuses disabled", () => {
    for (const overrides of off) {
      expect(toAnthropicRequest(request(overrides), claude5("claude-sonnet-5-5", "between_tools")).thinking).toEqual({
        type: "between_tools",
      });
    }
  });

  it("asks Opus 5.5, which cannot stop thinking, for the least effort instead of disabled", () => {
    for (const overrides of off) {
      expect(toAnthropicRequest(request(overrides), claude5("claude-opus-5-5", "always"))).toMatchObject({
        thinking: { type: "adaptive" },
        output_config: { effort: "low" },
      });
    }
    const budgeted = toAnthropicRequest(
      request({ thinking: { type: "enabled", budgetTokens: 20_000 } }),
      claude5("claude-opus-5-5", "always"),
    );
    expect(budgeted).toMatchObject({ thinking: { type: "adaptive" }, output_config: { effort: "high" } });
    expect(budgeted.thinking).not.toHaveProperty("budget_tokens");
  });
});

describe("a forced tool choice on a model that refuses one (Sonnet 5.5, Opus 5.5, Fable 5.1 on)", () => {
  const sonnet = {
    ...model(),
    id: "claude-sonnet-5-5",
    thinking: "between_tools",
    refuses: ["temperature", "top_p", "top_k", "forced_tool_choice"],
  } as CatalogueModel;

  it("sends a named function as the only tool, with tool_choice auto and an instruction to call it", () => {
    const body = toAnthropicRequest(
      request({
        messages: [message("system", "Extract the city."), message("user", "Weather in Paris?")],
        tools: [weather, time],
        toolChoice: { mode: "function", functionName: "get_weather" },
        parallelToolCalls: false,
      }),
      sonnet,
    );
    expect(body.tools).toEqual([expect.objectContaining({ name: "get_weather" })]);
    expect(body.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(body.system).toBe("Extract the city.\n\nAnswer by calling the tool `get_weather`; do not answer in text.");
  });

  it("keeps every tool for required, with tool_choice auto and an instruction to call one", () => {
    const body = toAnthropicRequest(request({ tools: [weather, time], toolChoice: { mode: "required" } }), sonnet);
    expect(body.tools).toHaveLength(2);
    expect(body.tool_choice).toEqual({ type: "auto" });
    expect(body.system).toBe("Answer by calling one of the tools; do not answer in text.");
  });

  it("keeps auto and none, and keeps forcing on models that take it", () => {
    const none = toAnthropicRequest(request({ tools: [weather], toolChoice: { mode: "none" } }), sonnet);
    expect(none).toMatchObject({ tool_choice: { type: "none" } });
    expect(none).not.toHaveProperty("system");
    const forced = toAnthropicRequest(
      request({ tools: [weather, time], toolChoice: { mode: "function", functionName: "get_time" } }),
      model(),
    );
    expect(forced.tool_choice).toEqual({ type: "tool", name: "get_time" });
    expect(forced.tools).toHaveLength(2);
  });
});

describe("a prefill on a model that refuses one (Haiku 5.5)", () => {
  const haiku = { ...model(), id: "claude-haiku-5-5", refuses: ["prefill"] } as CatalogueModel;

  it("refuses a final assistant message with a clear 400 before any vendor call", () => {
    const prefilled = request({ messages: [message("user", "Name a colour."), message("assistant", "The colour is")] });
    expect(() => toAnthropicRequest(prefilled, haiku)).toThrow(/does not take a final assistant message/);
    expect(toAnthropicRequest(prefilled, model()).messages).toHaveLength(2);
  });

  it("takes a tool loop, whose last assistant turn is followed by its results", () => {
    const loop = request({
      tools: [weather],
      messages: [
        message("user", "Weather?"),
        message("assistant", undefined, { toolCalls: [{ id: "call_1", name: "get_weather", arguments: "{}" }] }),
        message("tool", "sunny", { toolCallId: "call_1" }),
      ],
    });
    expect(() => toAnthropicRequest(loop, haiku)).not.toThrow();
  });
});

describe("a request of very many content blocks", () => {
  it("merges 150,000 blocks of consecutive user messages into one turn without overflowing the stack", () => {
    const parts = Array.from({ length: 150_000 }, () => ({ text: "a" }));
    const body = toAnthropicRequest(
      request({ messages: [message("user", "first"), message("user", undefined, { parts })] }),
      model(),
    );
    expect(body.messages).toHaveLength(1);
    expect((body.messages as { content: unknown[] }[])[0]!.content).toHaveLength(150_001);
  });
});
