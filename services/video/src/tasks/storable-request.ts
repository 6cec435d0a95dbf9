import { hasNoNul, invalidRequest, MAX_MODEL_CHARS } from "@gateway/platform";
import type { SubmitVideoRequest } from "@gateway/proto/video/v1/video";

// Edge's bounds on the same fields: a longer key would not fit the unique index it is stored under.
const MAX_IDEMPOTENCY_KEY_CHARS = 255;

/** What Postgres and the catalogue lookup need of the client's text, checked before either sees it. */
export function checkStorable(request: SubmitVideoRequest): void {
  if (request.model.length > MAX_MODEL_CHARS) {
    throw invalidRequest(`Invalid 'model': at most ${MAX_MODEL_CHARS} characters.`, "model");
  }
  if (request.idempotencyKey.length > MAX_IDEMPOTENCY_KEY_CHARS) {
    throw invalidRequest(
      `Invalid 'Idempotency-Key' header: at most ${MAX_IDEMPOTENCY_KEY_CHARS} characters.`,
      "Idempotency-Key",
    );
  }
  const texts = {
    model: request.model,
    prompt: request.prompt,
    callback_url: request.callbackUrl,
    "Idempotency-Key": request.idempotencyKey,
  };
  for (const [param, text] of Object.entries(texts)) {
    if (!hasNoNul(text)) throw invalidRequest(`Invalid '${param}': must not contain NUL (\\u0000) characters.`, param);
  }
}
