import type { Outcome, RequestFacts } from "@gateway/billing";
import { type Attributes, trace } from "@opentelemetry/api";

// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/ — well-known values where the
// convention has one, else the catalogue's vendor id.
const systemOfVendor: Record<string, string> = { google: "gcp.gemini" };

const operationOfEndpoint: Record<string, string> = {
  "/v1/chat/completions": "chat",
  "/v1/completions": "text_completion",
  "/v1/embeddings": "embeddings",
};

/** The GenAI semantic-convention attributes of one finished request. */
export function genAiAttributes(facts: RequestFacts, result: Outcome): Attributes {
  const attributes: Attributes = {
    "gen_ai.system": systemOfVendor[facts.model.vendor] ?? facts.model.vendor,
    "gen_ai.operation.name": operationOfEndpoint[facts.endpoint] ?? "generate_content",
    "gen_ai.request.model": facts.model.id,
  };
  if (result.usage) {
    attributes["gen_ai.usage.input_tokens"] = result.usage.promptTokens;
    attributes["gen_ai.usage.output_tokens"] = result.usage.completionTokens;
  }
  return attributes;
}

/** Names, on the request's span, the model the vendor says answered (it may differ from the one asked for). */
export function recordResponseModel(model: string): void {
  if (model) trace.getActiveSpan()?.setAttribute("gen_ai.response.model", model);
}
