import { RequestError } from "./chat-request.js";

// The reasoning efforts each OpenAI-protocol model takes, as its vendor documents them (OpenAI's
// model pages, xAI's), and what the newer OpenAI models refuse beside them on Chat Completions.

const allEfforts = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];

// Most specific first; a model no row matches takes any effort.
const table: [RegExp, string[]][] = [
  [/^gpt-(6\.[2-9]-|6-astra)/, ["low", "medium", "high", "xhigh", "max"]],
  [/^gpt-(5\.6|6)/, ["none", "low", "medium", "high", "xhigh", "max"]],
  [/^grok-4\.3/, ["none", "low", "medium", "high"]],
  [/^grok-4\.[4-9]/, ["low", "medium", "high"]],
];

const effortsOf = (model: string) => table.find(([pattern]) => pattern.test(model))?.[1] ?? allEfforts;

const quoted = (efforts: string[]) =>
  `${efforts
    .slice(0, -1)
    .map((effort) => `'${effort}'`)
    .join(", ")}, and '${efforts.at(-1)}'`;

// GPT-5.6 and GPT-6 take function tools on Chat Completions only without reasoning (relays report
// OpenAI's 400 verbatim; GPT-6.1 and 6.2 take both).
const toolsWithoutReasoning = /^gpt-(5\.6|6)-/;

/** Refuses, as the vendor does, an effort the model does not take or one it cannot combine with tools. */
export function checkReasoningEffort(model: string, effort: unknown, hasTools: boolean): void {
  if (typeof effort !== "string") return;
  const efforts = effortsOf(model);
  if (!efforts.includes(effort)) {
    throw new RequestError(
      `Unsupported value: '${effort}' is not supported with the '${model}' model. Supported values are: ${quoted(efforts)}.`,
      "reasoning_effort",
      "unsupported_value",
    );
  }
  if (hasTools && effort !== "none" && toolsWithoutReasoning.test(model)) {
    throw new RequestError(
      `Function tools with reasoning_effort are not supported for ${model} in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.`,
      "reasoning_effort",
      "unsupported_value",
    );
  }
}
