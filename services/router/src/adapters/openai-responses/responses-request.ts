import { invalidRequest } from "@gateway/platform";
import { z } from "zod";

// The few fields of a Responses request the gateway reads to admit and bill it; everything else
// (and these too) goes to OpenAI as the client sent it. https://platform.openai.com/docs/api-reference/responses/create
const relayedRequestSchema = z.looseObject({
  model: z.string(),
  max_output_tokens: z.number().int().positive().nullish(),
  previous_response_id: z.string().nullish(),
  conversation: z.unknown().optional(),
  service_tier: z.unknown().optional(),
  instructions: z.unknown().optional(),
  input: z.unknown().optional(),
  tools: z.unknown().optional(),
});

export type RelayedRequest = z.infer<typeof relayedRequestSchema>;

/** The client's body, as text and as the fields the gateway reads; a body that is no Responses request is the client's error. */
export function readRelayedRequest(body: Uint8Array): { text: string; fields: RelayedRequest } {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest("We could not parse the JSON body of your request. Send valid JSON.", null, "invalid_json");
  }
  const parsed = relayedRequestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidRequest(`Invalid '${issue.path.join(".")}': ${issue.message}.`, issue.path.join(".") || null);
  }
  return { text, fields: parsed.data };
}
