import { invalidRequest } from "@gateway/platform";
import type { ThinkingBlock } from "@gateway/proto/router/v1/chat";

// Claude's thinking blocks carried as Gemini thought parts, so a Gemini client's tool loop on a
// Claude model sends them back (Claude refuses a thinking turn's tool_use without its thinking).
// Shown thoughts (includeThoughts) are `{text, thought: true, thoughtSignature: <signature>}`.
// Hidden ones go out as Gemini hides its own, an opaque signature on an empty thought part:
// the text rides inside it, since Claude's signature vouches for that exact text. Redacted
// thinking is an empty thought part whose signature is the encrypted data. Google's signatures
// are base64, which has no `:`, so the prefixes cannot be mistaken for one.

const redactedPrefix = "claude-redacted-thinking:";
const hiddenPrefix = "claude-thinking:";

export interface ThoughtPart {
  text: string;
  thought: true;
  thoughtSignature?: string;
}

/** One of Claude's thinking blocks as the thought part a Gemini client keeps and sends back. */
export function thoughtPartOf(block: ThinkingBlock, includeThoughts: boolean): ThoughtPart | undefined {
  if (block.redactedData !== undefined) {
    return { text: "", thought: true, thoughtSignature: `${redactedPrefix}${block.redactedData}` };
  }
  if (!block.signature) return includeThoughts && block.thinking ? { text: block.thinking, thought: true } : undefined;
  if (includeThoughts) return { text: block.thinking, thought: true, thoughtSignature: block.signature };
  const hidden = Buffer.from(JSON.stringify({ thinking: block.thinking, signature: block.signature }));
  return { text: "", thought: true, thoughtSignature: `${hiddenPrefix}${hidden.toString("base64url")}` };
}

function hiddenBlock(encoded: string, where: string): ThinkingBlock {
  try {
    const { thinking, signature } = JSON.parse(Buffer.from(encoded, "base64url").toString()) as Record<string, unknown>;
    if (typeof thinking === "string" && typeof signature === "string") return { thinking, signature };
  } catch {
    // Refused below.
  }
  throw invalidRequest("This thoughtSignature is not one this API gave.", `${where}.thoughtSignature`);
}

/**
 * The thinking block a signed thought part closes: `text` is its thought text with that of the
 * unsigned thought parts before it (a streamed thought comes in pieces, its signature last).
 */
export function thinkingBlockOf(text: string, thoughtSignature: string, where: string): ThinkingBlock {
  if (thoughtSignature.startsWith(redactedPrefix)) {
    return { thinking: "", redactedData: thoughtSignature.slice(redactedPrefix.length) };
  }
  if (thoughtSignature.startsWith(hiddenPrefix)) return hiddenBlock(thoughtSignature.slice(hiddenPrefix.length), where);
  return { thinking: text, signature: thoughtSignature };
}
