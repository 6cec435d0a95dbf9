// The google.rpc status names Google's APIs pair with each HTTP code, for the Gemini ingress's
// errors and the simulator's Gemini errors alike. https://ai.google.dev/gemini-api/docs/troubleshooting
const statuses: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "NOT_IMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export const googleRpcStatus = (code: number) => statuses[code] ?? (code >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
