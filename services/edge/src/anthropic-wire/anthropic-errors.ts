import type { GatewayError } from "@gateway/platform";

// Gateway errors in Anthropic's error shape, for the Messages ingress.
// https://docs.anthropic.com/en/api/errors

const errorTypes: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  503: "overloaded_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** Anthropic's error type for a gateway error: by status, an empty balance being a billing error. */
export function anthropicErrorType(error: GatewayError): string {
  if (error.code === "insufficient_quota") return "billing_error";
  return errorTypes[error.httpStatus] ?? (error.httpStatus >= 500 ? "api_error" : "invalid_request_error");
}

export function anthropicErrorBody(error: GatewayError, requestId: string | undefined) {
  return {
    type: "error",
    error: { type: anthropicErrorType(error), message: error.message },
    request_id: requestId ?? null,
  };
}
