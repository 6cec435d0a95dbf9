import type { ChunkChoice } from "@gateway/proto/router/v1/chat";
import type { CompletionChoice } from "@gateway/proto/router/v1/completions";
import { type AnswerChoiceLog, answerChoiceLog } from "./answer-bodies.js";

interface ToolCallDraft {
  id: string;
  name: string;
  arguments: string;
}

interface ChoiceDraft {
  content: string | undefined;
  reasoning: string | undefined;
  toolCalls: Map<number, ToolCallDraft>;
  finishReason: string | undefined;
}

const byIndex = <T>(entries: Map<number, T>) => [...entries].sort(([a], [b]) => a - b);

/**
 * The answer of a stream, collected from the chunks delivered to the client so the request
 * log can keep it: text, reasoning and tool-call arguments of each choice, up to `maxBytes` of them (so
 * a long stream holds bounded memory); `truncated` tells that some were dropped. Secrets are
 * redacted later, on the whole text, since a key may arrive split across chunks.
 */
export class StreamAnswer {
  private readonly choices = new Map<number, ChoiceDraft>();
  private bytes = 0;
  truncated = false;

  // 0 when the request is not logged in full: nothing is collected then.
  constructor(private readonly maxBytes: number) {}

  /** Chat deltas or text-completion pieces (which carry `text`), as they pass to the client. */
  add(choices: readonly (ChunkChoice | CompletionChoice)[]): void {
    if (this.maxBytes === 0) return;
    for (const choice of choices) {
      const draft = this.draftOf(choice.index);
      draft.finishReason = choice.finishReason || draft.finishReason;
      const content = "text" in choice ? choice.text : choice.delta?.content;
      if (content) draft.content = this.append(draft.content ?? "", content);
      if ("text" in choice) continue;
      const reasoning = choice.delta?.reasoningContent;
      if (reasoning) draft.reasoning = this.append(draft.reasoning ?? "", reasoning);
      for (const call of choice.delta?.toolCalls ?? []) {
        let toolCall = draft.toolCalls.get(call.index);
        if (!toolCall) {
          toolCall = { id: "", name: "", arguments: "" };
          draft.toolCalls.set(call.index, toolCall);
        }
        if (call.id) toolCall.id = call.id;
        if (call.name) toolCall.name = this.append(toolCall.name, call.name);
        if (call.arguments) toolCall.arguments = this.append(toolCall.arguments, call.arguments);
      }
    }
  }

  /** The collected answer, in the shape of a unary answer's log. */
  toLog(): { choices: AnswerChoiceLog[] } {
    return {
      choices: byIndex(this.choices).map(([index, draft]) =>
        answerChoiceLog(
          index,
          draft.content,
          byIndex(draft.toolCalls).map(([, call]) => call),
          draft.finishReason,
          draft.reasoning,
        ),
      ),
    };
  }

  private draftOf(index: number): ChoiceDraft {
    let draft = this.choices.get(index);
    if (!draft) {
      draft = { content: undefined, reasoning: undefined, toolCalls: new Map(), finishReason: undefined };
      this.choices.set(index, draft);
    }
    return draft;
  }

  private append(kept: string, fragment: string): string {
    const size = Buffer.byteLength(fragment);
    if (this.bytes + size <= this.maxBytes) {
      this.bytes += size;
      return kept + fragment;
    }
    // The rest is dropped whole: the stored body is cut to the cap later, at a character boundary.
    this.truncated = true;
    this.bytes = this.maxBytes;
    return kept;
  }
}
