import { type GatewayError, googleRpcStatus } from "@gateway/platform";

// Errors as Google's APIs write them (google.rpc.Status): `{error:{code, message, status, details}}`.
// https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes

// Google's own reason for a bad key, which clients of its SDKs look for.
const reasonOf = (error: GatewayError) =>
  error.code === "invalid_api_key" ? "API_KEY_INVALID" : (error.code ?? error.type).toUpperCase();

/** The gateway's error in Google's shape: the reason, the offending field and the wait, as details. */
export function googleErrorBody(error: GatewayError) {
  const details: Record<string, unknown>[] = [
    { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: reasonOf(error), domain: "gateway" },
  ];
  if (error.param) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: [{ field: error.param, description: error.message }],
    });
  }
  if (error.retryAfterMs > 0) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: `${Math.ceil(error.retryAfterMs / 1000)}s`,
    });
  }
  return {
    error: { code: error.httpStatus, message: error.message, status: googleRpcStatus(error.httpStatus), details },
  };
}
