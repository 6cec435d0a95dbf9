import { int32From, modelId } from "@gateway/platform";
import { z } from "zod";

// A Responses request relayed to the vendor's own Responses API goes as the client sent it, so
// fields and tool types the gateway does not know pass (Codex adds some every month). What is
// checked is what is malformed by OpenAI's own documented bounds, so it never reaches the vendor.
// https://platform.openai.com/docs/api-reference/responses/create
// Never stricter than the translated path's schema, which every body also meets before chat:
// OpenAI's own floor (max_output_tokens of 16) is the vendor's to state.
export const relayedResponsesSchema = z.looseObject({
  model: modelId,
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  background: z.boolean().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_output_tokens: int32From(1).nullish(),
  previous_response_id: z.string().nullish(),
  instructions: z.string().nullish(),
  input: z.union([z.string(), z.array(z.union([z.string(), z.looseObject({})]))]).optional(),
  include: z.array(z.string()).nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
});
