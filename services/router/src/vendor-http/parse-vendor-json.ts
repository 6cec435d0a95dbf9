import { serviceUnavailable } from "@gateway/platform";

/** A vendor answer the gateway cannot use is the vendor's failure: 503, so it is retried. */
export const malformedAnswer = () => serviceUnavailable("The model provider sent a malformed answer. Please retry.");

/** Checks a vendor's JSON answer against its schema. */
export function parseVendorJson<T>(
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
  value: unknown,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw malformedAnswer();
  return parsed.data as T;
}

export const malformedStream = () => serviceUnavailable("The model provider sent a malformed stream. Please retry.");

/**
 * Parses one SSE data payload. A payload that is not JSON, or that carries a top-level
 * `error` (how OpenAI-style and Gemini streams report a failure), is the vendor's failure.
 */
export function parseStreamPayload(data: string): unknown {
  let payload: unknown;
  try {
    payload = JSON.parse(data);
  } catch {
    throw malformedStream();
  }
  if (payload && typeof payload === "object" && "error" in payload) {
    throw serviceUnavailable("The model provider failed while streaming. Please retry.");
  }
  return payload;
}
