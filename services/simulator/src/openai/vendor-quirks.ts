// Where the OpenAI-compatible vendors' chat answers differ from OpenAI's own, as their recorded
// answers show (tools/replay/recordings): the simulator answers each model in its vendor's way.

const isDeepSeek = (model: string) => model.startsWith("deepseek");
const isQwen = (model: string) => model.startsWith("qwen");
const isOpenAI = (model: string) => /^(gpt|o\d|chatgpt)/.test(model);

/** xAI sends no chunk of its own for the role: it rides on the first reasoning or content piece. */
export const roleOnFirstPiece = (model: string) => model.startsWith("grok");

/** Qwen refuses a streamed request with its error as an event line, under the error's status. */
export const framesStreamRefusals = isQwen;

/** DeepSeek's last chunk carries the usage beside finish_reason; OpenAI and Qwen send a chunk of its own. */
export const usageOnFinishChunk = isDeepSeek;

/** The content beside tool calls: OpenAI says null, DeepSeek, Qwen and xAI an empty string. */
export const contentBesideToolCalls = (model: string) => (isOpenAI(model) ? null : "");

/** DeepSeek and Qwen number the tool calls of a whole message as they do a stream's. */
export const numbersToolCalls = (model: string) => isDeepSeek(model) || isQwen(model);

const zeroedOutputDetails = { audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 };

/** OpenAI's own fields the others leave out: the tier that served the call, and zeroed usage details. */
export function openAIExtras(model: string) {
  if (!isOpenAI(model)) return undefined;
  return { serviceTier: "default", promptDetails: { audio_tokens: 0 }, completionDetails: zeroedOutputDetails };
}

/** xAI counts reasoning apart from completion_tokens (total_tokens has both), as its recorded answers show. */
export const reportsReasoningApart = (model: string) => model.startsWith("grok");

// A nominal price for the simulated cost (USD per million tokens); xAI bills in 1e-10 USD ticks.
const NOMINAL_USD_PER_MILLION = { input: 0.3, output: 0.5 };
const TICKS_PER_USD = 10_000_000_000;

/** The usage fields xAI adds beside OpenAI's: input by modality, web sources used, and the call's cost. */
export function xaiUsageExtras(model: string, promptTokens: number, outputTokens: number) {
  if (!reportsReasoningApart(model)) return undefined;
  const usd =
    (promptTokens * NOMINAL_USD_PER_MILLION.input + outputTokens * NOMINAL_USD_PER_MILLION.output) / 1_000_000;
  return {
    promptDetails: { text_tokens: promptTokens, audio_tokens: 0, image_tokens: 0 },
    completionDetails: zeroedOutputDetails,
    fields: { num_sources_used: 0, cost_in_usd_ticks: Math.round(usd * TICKS_PER_USD) },
  };
}
