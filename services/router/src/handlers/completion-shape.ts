import type { CatalogueModel } from "@gateway/catalogue";
import { invalidRequest } from "@gateway/platform";
import type { ChatChunk, ChatCompletion, ChatRequest } from "@gateway/proto/router/v1/chat";
import type { CompletionChoice, CompletionRequest } from "@gateway/proto/router/v1/completions";

// Legacy text completions served through chat: each prompt becomes one user message, and
// each chat choice becomes a text choice numbered the way OpenAI numbers several prompts.

/** One canonical chat request per prompt, carrying every sampling field of the completion. */
export function chatRequestsFor(request: CompletionRequest): ChatRequest[] {
  return request.prompts.map((prompt) => ({
    caller: request.caller,
    model: request.model,
    messages: [{ role: "user", text: prompt, parts: [], toolCalls: [] }],
    tools: [],
    temperature: request.temperature,
    topP: request.topP,
    maxTokens: request.maxTokens,
    n: request.n,
    stop: request.stop,
    seed: request.seed,
    stream: request.stream,
    // The gateway emits its own usage chunk for all prompts together.
    includeUsage: false,
    presencePenalty: request.presencePenalty,
    frequencyPenalty: request.frequencyPenalty,
    user: request.user,
    extraJson: request.extraJson,
    anthropicBeta: [],
    anthropicExtraJson: "",
  }));
}

/**
 * `suffix` needs a vendor's native insertion (fill-in-the-middle) mode; every catalogue model
 * is served through a chat API, which has none, so the gateway refuses it instead of
 * silently answering something else.
 */
export function checkCompletionRequest(request: CompletionRequest, model: CatalogueModel): void {
  if (request.suffix) {
    throw invalidRequest(
      `The model \`${model.id}\` does not support 'suffix': it is served through a chat API without insertion.`,
      "suffix",
      "unsupported_parameter",
    );
  }
}

/** The text choices of one prompt's chat answer; `echo` puts the prompt in front. */
export function textChoicesOf(
  completion: ChatCompletion,
  promptIndex: number,
  request: CompletionRequest,
): CompletionChoice[] {
  const n = request.n ?? 1;
  const prompt = request.prompts[promptIndex] ?? "";
  return completion.choices.map((choice) => ({
    index: promptIndex * n + choice.index,
    text: (request.echo ? prompt : "") + (choice.message?.content ?? ""),
    finishReason: choice.finishReason,
  }));
}

/**
 * Maps the chunks of one prompt's chat stream to text-completion choices. The prompt of
 * an echoing request goes in front of each choice's first piece; empty pieces (the role
 * announcement, reasoning) are dropped.
 */
export class TextChunkMapper {
  private readonly echoed = new Set<number>();

  constructor(
    private readonly request: CompletionRequest,
    private readonly promptIndex: number,
  ) {}

  map(chunk: ChatChunk): CompletionChoice[] {
    const n = this.request.n ?? 1;
    const choices: CompletionChoice[] = [];
    for (const choice of chunk.choices) {
      let text = choice.delta?.content ?? "";
      if (this.request.echo && !this.echoed.has(choice.index)) {
        this.echoed.add(choice.index);
        text = (this.request.prompts[this.promptIndex] ?? "") + text;
      }
      const finishReason = choice.finishReason ?? "";
      if (text === "" && finishReason === "") continue;
      choices.push({ index: this.promptIndex * n + choice.index, text, finishReason });
    }
    return choices;
  }
}
