import { fnv1a } from "../answer.js";

// Log probabilities in OpenAI's chat shape, made up but stable: the same token always gets the same one.
// https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices

const alternatives = ["the", "a", "and", "of", "to", "in", "is", "it", "that", "on"];

const bytesOf = (token: string) => [...Buffer.from(token, "utf8")];

/** Between -0.001 and -2: how sure a simulated model is of a token. */
const logprobOf = (token: string) => -(1 + (fnv1a(token) % 2000)) / 1000;

function entryOf(token: string, top: number) {
  const logprob = logprobOf(token);
  const others = alternatives.filter((other) => other !== token.trim()).slice(0, Math.max(0, top - 1));
  return {
    token,
    logprob,
    bytes: bytesOf(token),
    top_logprobs: [
      ...(top > 0 ? [{ token, logprob, bytes: bytesOf(token) }] : []),
      ...others.map((other, rank) => ({ token: other, logprob: logprob - 1 - rank, bytes: bytesOf(other) })),
    ],
  };
}

/** A choice's (or a chunk's) `logprobs`: one entry a token, with the `top` likeliest at each. */
export const logprobsOf = (tokens: string[], top: number) => ({
  content: tokens.map((token) => entryOf(token, top)),
  refusal: null,
});
