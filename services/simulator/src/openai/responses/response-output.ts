import { randomBytes } from "node:crypto";
import type { Answer } from "../../answer.js";
import type { ResponsesRequest } from "./responses-request.js";
import { sealReasoning } from "./sealed-reasoning.js";

// The response object and its output items as OpenAI writes them
// (https://platform.openai.com/docs/api-reference/responses/object).

export type OutputItem = Record<string, unknown> & { id: string; type: string };

const idOf = (prefix: string) => `${prefix}_${randomBytes(24).toString("hex")}`;

/** The answer as output items, in OpenAI's order: reasoning, then the calls or the message. */
export function outputItemsOf(result: Answer, request: ResponsesRequest): OutputItem[] {
  const items: OutputItem[] = [];
  if (result.reasoning.length > 0) {
    const id = idOf("rs");
    const text = result.reasoning.join("");
    items.push({
      id,
      type: "reasoning",
      summary: request.summary ? [{ type: "summary_text", text }] : [],
      ...(request.encryptedReasoning && { encrypted_content: sealReasoning(id, text) }),
    });
  }
  for (const call of result.toolCalls) {
    if (request.customTools.has(call.name)) {
      items.push({
        id: idOf("ctc"),
        type: "custom_tool_call",
        call_id: call.id,
        name: call.name,
        input: `Simulated input for ${call.name}`,
      });
    } else {
      items.push({
        id: idOf("fc"),
        type: "function_call",
        status: "completed",
        arguments: call.arguments,
        call_id: call.id,
        name: call.name,
      });
    }
  }
  if (result.toolCalls.length === 0) {
    const content = [{ type: "output_text", annotations: [], logprobs: [], text: result.tokens.join("") }];
    items.push({ id: idOf("msg"), type: "message", status: "completed", content, role: "assistant" });
  }
  return items;
}

export interface ResponseUsageCounts {
  inputTokens: number;
  cachedTokens: number;
}

/**
 * What every state of one response shares: its identity and the request's settings, echoed.
 * OpenAI also sends `user: null` (and `usage: null` while in progress), which its published
 * schema does not allow; the simulator leaves both out, so what it answers conforms.
 */
export function responseShell(request: ResponsesRequest) {
  const { body } = request;
  const reasoning = (body.reasoning ?? {}) as Record<string, unknown>;
  const text = (body.text ?? {}) as Record<string, unknown>;
  return {
    id: idOf("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: request.answer.model,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: "default",
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: text.format ?? { type: "text" }, verbosity: text.verbosity ?? "medium" },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    metadata: body.metadata ?? {},
  };
}

export type ResponseShell = ReturnType<typeof responseShell>;

/** The response while it is generated: no output yet, no usage. */
export const inProgress = (shell: ResponseShell) => ({
  ...shell,
  status: "in_progress",
  completed_at: null,
  output: [],
});

/** The finished response, with usage counted as OpenAI counts it (reasoning tokens within output tokens). */
export function finished(shell: ResponseShell, result: Answer, output: OutputItem[], counts: ResponseUsageCounts) {
  const cut = result.finishReason === "length";
  return {
    ...shell,
    status: cut ? "incomplete" : "completed",
    completed_at: Math.floor(Date.now() / 1000),
    incomplete_details: cut ? { reason: "max_output_tokens" } : null,
    output,
    usage: {
      input_tokens: counts.inputTokens,
      input_tokens_details: { cached_tokens: counts.cachedTokens, cache_write_tokens: 0 },
      output_tokens: result.completionTokens,
      output_tokens_details: { reasoning_tokens: result.reasoning.length },
      total_tokens: counts.inputTokens + result.completionTokens,
    },
  };
}
