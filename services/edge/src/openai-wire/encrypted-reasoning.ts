import type { ThinkingBlock } from "@gateway/proto/router/v1/chat";
import { z } from "zod";

// What a vendor needs back of its reasoning (Claude's signed and redacted thinking blocks), for a
// client that stores nothing server-side (`store: false` with `include:
// ["reasoning.encrypted_content"]`, as Codex runs): it rides in the reasoning item's
// `encrypted_content`, which such clients send back untouched, and is restored into the
// assistant turn. It is opaque to the client but not encrypted: the client was shown the thinking
// already, and Claude's signature is what refuses a changed block. Gemini's signatures ride in
// call ids instead (signatures-in-call-ids.ts), as on every ingress.

// Tells ours from OpenAI's own encrypted content, which means nothing to another vendor.
const prefix = "gw1.";

const carried = z.object({
  thinking_blocks: z
    .array(
      z.union([z.object({ thinking: z.string(), signature: z.string() }), z.object({ redacted_data: z.string() })]),
    )
    .max(64),
});

export function encryptedReasoning(blocks: readonly ThinkingBlock[]): string | undefined {
  if (blocks.length === 0) return undefined;
  const thinkingBlocks = blocks.map((block) =>
    block.redactedData !== undefined
      ? { redacted_data: block.redactedData }
      : { thinking: block.thinking, signature: block.signature ?? "" },
  );
  return prefix + Buffer.from(JSON.stringify({ thinking_blocks: thinkingBlocks })).toString("base64url");
}

/** The thinking blocks a reasoning item carries; none for content that is not the gateway's. */
export function thinkingOfEncryptedReasoning(content: string | null | undefined): ThinkingBlock[] {
  if (!content?.startsWith(prefix)) return [];
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(content.slice(prefix.length), "base64url").toString("utf8"));
  } catch {
    return [];
  }
  const parsed = carried.safeParse(decoded);
  if (!parsed.success) return [];
  return parsed.data.thinking_blocks.map((block) =>
    "redacted_data" in block
      ? { thinking: "", redactedData: block.redacted_data }
      : { thinking: block.thinking, signature: block.signature },
  );
}
