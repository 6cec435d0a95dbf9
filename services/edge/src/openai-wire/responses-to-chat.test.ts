import { describe, expect, it } from "vitest";
import { applyPatchGrammar, codexTools } from "./codex-tools.fixtures.js";
import { encryptedReasoning } from "./encrypted-reasoning.js";
import { responsesRequestSchema } from "./responses-request-schema.js";
import { chatToolsOf, responsesToChat } from "./responses-to-chat.js";

const caller = { requestId: "req_1", accountId: "a", keyId: "k", modelGroup: "default", multiplierBasisPoints: 10_000 };
const parse = (body: unknown) => responsesRequestSchema.parse(body);
const canonical = (body: unknown, history = []) => responsesToChat(parse(body), caller, history);

describe("Responses body to the canonical chat request", () => {
  it("makes a string input one user message after the instructions", () => {
    const request = canonical({ model: "m", input: "hi", instructions: "be brief", max_output_tokens: 50 });
    expect(request.messages).toEqual([
      { role: "system", text: "be brief", parts: [], toolCalls: [] },
      { role: "user", text: "hi", parts: [], toolCalls: [] },
    ]);
    expect(request.maxTokens).toBe(50);
  });

  it("joins function calls into one assistant turn and pairs their outputs", () => {
    const request = canonical({
      model: "m",
      input: [
        { role: "user", content: [{ type: "input_image", image_url: "https://example.com/a.png" }] },
        { type: "function_call", call_id: "c1", name: "a", arguments: "{}" },
        { type: "function_call", call_id: "c2", name: "b", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "one" },
      ],
    });
    expect(request.messages[0]!.parts).toEqual([{ imageUrl: { url: "https://example.com/a.png", detail: undefined } }]);
    expect(request.messages[1]).toMatchObject({ role: "assistant", toolCalls: [{ id: "c1" }, { id: "c2" }] });
    expect(request.messages[2]).toMatchObject({ role: "tool", text: "one", toolCallId: "c1" });
  });

  it("gives a reasoning item's text to the assistant turn after it, and skips one with no text", () => {
    const call = (id: string) => ({ type: "function_call", call_id: id, name: "a", arguments: "{}" });
    const request = canonical({
      model: "m",
      reasoning: { effort: "high" },
      input: [
        { role: "user", content: "q" },
        { type: "reasoning", summary: [{ type: "summary_text", text: "Think" }] },
        call("c1"),
        { type: "reasoning", summary: [], encrypted_content: "opaque" },
        call("c2"),
      ],
    });
    expect(request.reasoningEffort).toBe("high");
    expect(request.messages).toHaveLength(2);
    expect(request.messages[1]).toMatchObject({
      role: "assistant",
      reasoningContent: "Think",
      toolCalls: [{ id: "c1" }, { id: "c2" }],
    });
  });

  it("nests a flat json_schema format as chat's response_format and maps flat tools", () => {
    const request = canonical({
      model: "m",
      input: "hi",
      text: { format: { type: "json_schema", name: "r", schema: { type: "object" }, strict: true } },
      tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: true }],
      tool_choice: { type: "function", name: "f" },
    });
    expect(request.responseFormat).toEqual({
      type: "json_schema",
      jsonSchemaJson: JSON.stringify({ name: "r", schema: { type: "object" }, strict: true }),
    });
    expect(request.tools).toEqual([
      { name: "f", description: undefined, parametersJson: '{"type":"object"}', strict: true },
    ]);
    expect(request.toolChoice).toEqual({ mode: "function", functionName: "f" });
  });

  it("puts the stored conversation between the instructions and the new input", () => {
    const earlier = [{ role: "user", text: "before", parts: [], toolCalls: [] }];
    const request = responsesToChat(
      responsesRequestSchema.parse({ model: "m", input: "after", instructions: "sys" }),
      caller,
      earlier,
    );
    expect(request.messages.map((message) => message.text)).toEqual(["sys", "before", "after"]);
  });

  it("refuses a malformed function tool, naming its field", () => {
    const parsed = responsesRequestSchema.safeParse({ model: "m", input: "hi", tools: [{ type: "function" }] });
    expect(parsed.error!.issues[0]!.path).toEqual(["tools", 0, "name"]);
  });

  it.each([
    ["background", { background: true }],
    ["conversation", { conversation: "conv_1" }],
    ["prompt", { prompt: { id: "pmpt_1" } }],
  ])("refuses %s, which the chat path cannot serve and dropping would change", (field, extra) => {
    const parsed = responsesRequestSchema.safeParse({ model: "m", input: "hi", ...extra });
    expect(parsed.error!.issues[0]!.path).toEqual([field]);
  });

  it("takes fields it does not interpret, as clients such as Codex send them", () => {
    const body = {
      model: "m",
      input: "hi",
      store: false,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "thread-1",
      client_metadata: { "x-codex-turn": "1" },
      text: { verbosity: "low" },
      reasoning: { effort: "medium", summary: "none" },
      some_future_field: { nested: true },
    };
    const request = canonical(body);
    expect(request.reasoningEffort).toBe("medium");
    expect(JSON.parse(request.extraJson)).toEqual({ verbosity: "low", prompt_cache_key: "thread-1" });
  });
});

describe("Responses tools on the chat path", () => {
  const requestTools = [...codexTools, { type: "image_generation" }];

  it("offers a freeform tool as a function of one string whose description carries the grammar", () => {
    const [, applyPatch] = chatToolsOf(parse({ model: "m", input: "hi", tools: requestTools })).tools;
    expect(applyPatch!.name).toBe("apply_patch");
    expect(applyPatch!.description).toContain("Use the `apply_patch` tool to edit files.");
    expect(applyPatch!.description).toContain(`Lark grammar:\n${applyPatchGrammar}`);
    expect(JSON.parse(applyPatch!.parametersJson!)).toMatchObject({
      properties: { input: { type: "string" } },
      required: ["input"],
    });
  });

  it("offers a client-run tool search as a function and leaves out hosted tools, naming them", () => {
    const tools = chatToolsOf(parse({ model: "m", input: "hi", tools: requestTools }));
    expect(tools.tools.map((tool) => tool.name)).toEqual(["exec_command", "apply_patch", "tool_search"]);
    expect([...tools.kinds]).toEqual([
      ["exec_command", { kind: "function" }],
      ["apply_patch", { kind: "custom" }],
      ["tool_search", { kind: "tool_search" }],
    ]);
    expect(tools.dropped).toEqual(["web_search", "image_generation"]);
    const hosted = chatToolsOf(parse({ model: "m", input: "hi", tools: [{ type: "tool_search" }] }));
    expect(hosted).toMatchObject({ tools: [], dropped: ["tool_search"] });
  });

  it("chooses a custom tool by name and lets the model choose when the chosen tool was left out", () => {
    const body = (toolChoice: unknown) => ({ model: "m", input: "hi", tools: requestTools, tool_choice: toolChoice });
    expect(canonical(body({ type: "custom", name: "apply_patch" })).toolChoice).toEqual({
      mode: "function",
      functionName: "apply_patch",
    });
    expect(canonical(body({ type: "web_search" })).toolChoice).toEqual({ mode: "auto" });
    expect(canonical(body({ type: "mcp", server_label: "deepwiki", name: "ask" })).toolChoice).toEqual({
      mode: "auto",
    });
    expect(canonical(body({ type: "allowed_tools", mode: "required", tools: [] })).toolChoice).toEqual({
      mode: "required",
    });
  });

  it("sends freeform and tool search calls back as the function calls the model made, and their outputs as results", () => {
    const request = canonical({
      model: "m",
      tools: requestTools,
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "sandbox rules" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "fix it" }] },
        { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch\n" },
        { type: "tool_search_call", call_id: "c2", execution: "client", arguments: { query: "github" } },
        { type: "custom_tool_call_output", call_id: "c1", output: "Done!" },
        {
          type: "tool_search_output",
          call_id: "c2",
          execution: "client",
          tools: [{ type: "function", name: "gh_pr", parameters: { type: "object" } }],
        },
      ],
    });
    expect(request.messages[0]).toEqual({
      role: "system",
      text: undefined,
      parts: [{ text: "sandbox rules" }],
      toolCalls: [],
    });
    expect(request.messages[2]!.toolCalls).toEqual([
      { id: "c1", name: "apply_patch", arguments: JSON.stringify({ input: "*** Begin Patch\n" }) },
      { id: "c2", name: "tool_search", arguments: '{"query":"github"}' },
    ]);
    expect(request.messages[3]).toMatchObject({ role: "tool", toolCallId: "c1", text: "Done!" });
    expect(request.messages[4]).toMatchObject({
      role: "tool",
      toolCallId: "c2",
      text: expect.stringContaining("gh_pr"),
    });
    expect(request.tools.map((tool) => tool.name)).toContain("gh_pr");
  });

  it("restores the signed thinking a reasoning item's encrypted_content carries ahead of the turn's calls", () => {
    const signed = encryptedReasoning([{ thinking: "plan", signature: "sig" }]);
    const request = canonical({
      model: "m",
      input: [
        { role: "user", content: "q" },
        { type: "reasoning", summary: [{ type: "summary_text", text: "plan" }], encrypted_content: signed },
        { type: "function_call", call_id: "c1", name: "a", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "out" }] },
      ],
    });
    expect(request.messages[1]).toMatchObject({
      role: "assistant",
      reasoningContent: "plan",
      parts: [{ thinking: { thinking: "plan", signature: "sig" } }],
      toolCalls: [{ id: "c1" }],
    });
    expect(request.messages[2]).toMatchObject({ role: "tool", parts: [{ text: "out" }] });
  });

  it("offers the tools of a namespace, in the request or added by an additional_tools item, under their own names", () => {
    const namespace = (name: string, inner: string) => ({
      type: "namespace",
      name,
      description: "",
      tools: [{ type: "function", name: inner, strict: false, parameters: { type: "object" } }],
    });
    const body = parse({
      model: "m",
      tools: [namespace("multi_agent_v1", "spawn_agent")],
      input: [
        { type: "additional_tools", id: "at_1", role: "developer", tools: [namespace("clock", "sleep")] },
        { role: "user", content: "hi" },
      ],
    });
    const tools = chatToolsOf(body);
    expect(tools.tools.map((tool) => tool.name)).toEqual(["spawn_agent", "sleep"]);
    expect(tools.kinds.get("sleep")).toEqual({ kind: "function", namespace: "clock" });
    expect(responsesToChat(body, caller, []).messages).toEqual([
      { role: "user", text: "hi", parts: [], toolCalls: [] },
    ]);
  });
});
