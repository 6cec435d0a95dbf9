import type { CatalogueModel } from "@gateway/catalogue";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { toOpenAIRequest } from "./to-openai-request.js";
import { vendorProfiles } from "./vendor-profiles.js";

const model = (capabilities: CatalogueModel["capabilities"] = []) =>
  ({ id: "upstream-model", capabilities }) as unknown as CatalogueModel;

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  caller: undefined,
  model: "m",
  anthropicBeta: [],
  anthropicExtraJson: "",
  messages: [{ role: "user", text: "hi", parts: [], toolCalls: [] }],
  tools: [],
  stop: [],
  stream: false,
  includeUsage: false,
  extraJson: "",
  ...overrides,
});

describe("canonical request to an OpenAI-protocol body", () => {
  it("always asks a stream for usage, whatever the client asked", () => {
    const body = toOpenAIRequest(request({ stream: true, includeUsage: false }), model(), vendorProfiles.deepseek!);
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("sends max_completion_tokens to OpenAI and max_tokens to the others", () => {
    expect(toOpenAIRequest(request({ maxTokens: 50 }), model(), vendorProfiles.openai!)).toMatchObject({
      max_completion_tokens: 50,
    });
    const deepseek = toOpenAIRequest(request({ maxTokens: 50 }), model(), vendorProfiles.deepseek!);
    expect(deepseek).toMatchObject({ max_tokens: 50 });
    expect(deepseek).not.toHaveProperty("max_completion_tokens");
  });

  it("leaves out parameters a vendor's reasoning models reject", () => {
    const body = toOpenAIRequest(
      request({ temperature: 0.5, stop: ["x"], presencePenalty: 1 }),
      model(["reasoning"]),
      vendorProfiles.xai!,
    );
    expect(body).toMatchObject({ temperature: 0.5 });
    expect(body).not.toHaveProperty("stop");
    expect(body).not.toHaveProperty("presence_penalty");
  });

  it("leaves out the sampling parameters a model refuses (Kimi K3 takes temperature 1 only)", () => {
    const k3 = { ...model(["reasoning"]), refuses: ["temperature", "top_p"] } as unknown as CatalogueModel;
    const body = toOpenAIRequest(request({ temperature: 0.3, topP: 0.9, seed: 7 }), k3, vendorProfiles.moonshot!);
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("top_p");
    expect(body).toMatchObject({ seed: 7 });
  });

  it("moves an effort a model does not take to the nearest one it does", () => {
    const taking = (reasoning_efforts: string[]) =>
      ({ ...model(["reasoning"]), reasoning_efforts }) as unknown as CatalogueModel;
    const effortFor = (reasoningEffort: string, efforts: string[]) =>
      toOpenAIRequest(request({ reasoningEffort }), taking(efforts), vendorProfiles.openai!).reasoning_effort;
    // GPT-6.2 has no "none" or "minimal"; Grok 4.3 nothing above "high".
    expect(effortFor("none", ["low", "medium", "high", "xhigh", "max"])).toBe("low");
    expect(effortFor("minimal", ["none", "low", "medium", "high"])).toBe("low");
    expect(effortFor("max", ["none", "low", "medium", "high"])).toBe("high");
    expect(effortFor("xhigh", ["low", "medium", "high", "xhigh", "max"])).toBe("xhigh");
    expect(
      toOpenAIRequest(request({ reasoningEffort: "max" }), model(["reasoning"]), vendorProfiles.openai!),
    ).toMatchObject({
      reasoning_effort: "max",
    });
  });

  it("turns Qwen thinking off for non-streaming calls only", () => {
    expect(toOpenAIRequest(request(), model(), vendorProfiles.qwen!)).toMatchObject({ enable_thinking: false });
    expect(toOpenAIRequest(request({ stream: true }), model(), vendorProfiles.qwen!)).not.toHaveProperty(
      "enable_thinking",
    );
  });

  it("maps parts, tool calls, tools and tool choice to OpenAI's wire shapes", () => {
    const body = toOpenAIRequest(
      request({
        messages: [
          { role: "user", parts: [{ text: "see" }, { imageUrl: { url: "data:image/png;base64,AA" } }], toolCalls: [] },
          {
            role: "assistant",
            parts: [],
            toolCalls: [{ id: "c1", name: "f", arguments: "{}" }],
            reasoningContent: "thought",
          },
          { role: "tool", text: "ok", parts: [], toolCalls: [], toolCallId: "c1" },
        ],
        tools: [{ name: "f", parametersJson: '{"type":"object"}' }],
        toolChoice: { mode: "required" },
      }),
      model(),
      vendorProfiles.openai!,
    );
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AA" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", content: "ok", tool_call_id: "c1" },
    ]);
    expect(body.tools).toEqual([{ type: "function", function: { name: "f", parameters: { type: "object" } } }]);
    expect(body.tool_choice).toBe("required");
  });

  it("keeps reasoning_content in history for vendors that need it back", () => {
    const history = request({
      messages: [{ role: "assistant", parts: [], toolCalls: [], reasoningContent: "thought", text: "a" }],
    });
    expect(toOpenAIRequest(history, model(), vendorProfiles.deepseek!).messages).toEqual([
      { role: "assistant", content: "a", reasoning_content: "thought" },
    ]);
  });

  it("passes extra fields through without letting them override the model", () => {
    const body = toOpenAIRequest(
      request({ extraJson: '{"logit_bias":{"1":2},"model":"other"}' }),
      model(),
      vendorProfiles.openai!,
    );
    expect(body).toMatchObject({ logit_bias: { "1": 2 }, model: "upstream-model" });
  });

  it("sends reasoning_effort to reasoning models only", () => {
    const effort = request({ reasoningEffort: "low" });
    expect(toOpenAIRequest(effort, model(["reasoning"]), vendorProfiles.openai!).reasoning_effort).toBe("low");
    expect(toOpenAIRequest(effort, model(), vendorProfiles.openai!)).not.toHaveProperty("reasoning_effort");
  });

  it("turns a thinking budget from the Messages or Gemini ingress into the least effort that covers it", () => {
    const effortFor = (thinking: ChatRequest["thinking"]) =>
      toOpenAIRequest(request({ thinking }), model(["reasoning"]), vendorProfiles.deepseek!).reasoning_effort;
    expect(effortFor({ type: "enabled", budgetTokens: 1024 })).toBe("low");
    expect(effortFor({ type: "enabled", budgetTokens: 4000 })).toBe("medium");
    expect(effortFor({ type: "enabled", budgetTokens: 30_000 })).toBe("high");
    expect(effortFor({ type: "enabled" })).toBe("medium");
    expect(effortFor({ type: "disabled" })).toBeUndefined();
    expect(
      toOpenAIRequest(
        request({ reasoningEffort: "minimal", thinking: { type: "enabled", budgetTokens: 30_000 } }),
        model(["reasoning"]),
        vendorProfiles.openai!,
      ).reasoning_effort,
    ).toBe("minimal");
  });

  it("sends text documents as text, PDFs as file parts where the vendor reads them, and drops thinking", () => {
    const pdf = { sourceType: "base64", mediaType: "application/pdf", data: "JVBERi0=", title: "a.pdf" };
    const withDocuments = request({
      messages: [
        {
          role: "user",
          parts: [{ document: { sourceType: "text", data: "plain words" } }, { document: pdf }],
          toolCalls: [],
        },
        { role: "assistant", parts: [{ thinking: { thinking: "t", signature: "s" } }, { text: "a" }], toolCalls: [] },
      ],
    });
    expect(toOpenAIRequest(withDocuments, model(), vendorProfiles.openai!).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "plain words" },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" } },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "a" }] },
    ]);
    expect(() => toOpenAIRequest(withDocuments, model(), vendorProfiles.deepseek!)).toThrow(/PDF/);
  });
});
