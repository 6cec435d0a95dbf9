import type { ChatChunk, ChatCompletion, ChatRequest } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import type { AdapterCall, ChatAdapter } from "./chat-adapter.js";
import { leavingOutClaudeServerTools } from "./claude-server-tools.js";

const seen: ChatRequest[] = [];
const recording: ChatAdapter = {
  async complete(call) {
    seen.push(call.request);
    return {} as ChatCompletion;
  },
  async *stream(call): AsyncIterable<ChatChunk> {
    seen.push(call.request);
    yield { id: "c", created: 0, model: "m", choices: [] };
  },
};

const call = (tools: ChatRequest["tools"]) => ({ request: { tools } as ChatRequest }) as AdapterCall;

describe("Claude's server tools on another vendor", () => {
  it("are left out while the client's own tools go on", async () => {
    const adapter = leavingOutClaudeServerTools(recording);
    const own = { name: "Glob", parametersJson: '{"type":"object"}' };
    await adapter.complete(call([own, { name: "web_search", anthropicToolJson: "{}" }]));
    for await (const chunk of adapter.stream(call([{ name: "web_search", anthropicToolJson: "{}" }]))) {
      expect(chunk.id).toBe("c");
    }
    expect(seen.map((request) => request.tools)).toEqual([[own], []]);
  });
});
