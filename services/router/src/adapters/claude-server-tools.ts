import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import type { AdapterCall, ChatAdapter } from "./chat-adapter.js";

/**
 * The request without Claude's server tools (web search, code execution, bash...): Claude runs
 * them itself, other vendors have nothing to run them with, and the client's own tools still work.
 */
function withoutServerTools(request: ChatRequest): ChatRequest {
  if (!request.tools.some((tool) => tool.anthropicToolJson !== undefined)) return request;
  return { ...request, tools: request.tools.filter((tool) => tool.anthropicToolJson === undefined) };
}

const callWithout = (call: AdapterCall): AdapterCall => ({ ...call, request: withoutServerTools(call.request) });

/** An adapter of another protocol than Claude's, taking requests that may name Claude's server tools. */
export function leavingOutClaudeServerTools(adapter: ChatAdapter): ChatAdapter {
  const { countTokens } = adapter;
  return {
    complete: (call) => adapter.complete(callWithout(call)),
    stream: (call) => adapter.stream(callWithout(call)),
    ...(countTokens && { countTokens: (call: AdapterCall) => countTokens.call(adapter, callWithout(call)) }),
  };
}
