import { truncateUtf8 } from "@gateway/platform";

/**
 * Cuts a request and a response body to share `maxBytes`: each may keep at least half, and
 * what one leaves unused goes to the other, so a short prompt leaves room for a long answer.
 */
export function fitBodies(request: string, response: string, maxBytes: number) {
  const half = Math.floor(maxBytes / 2);
  const requestBudget = Math.max(half, maxBytes - Buffer.byteLength(response));
  const keptRequest = truncateUtf8(request, requestBudget);
  const keptResponse = truncateUtf8(response, maxBytes - Buffer.byteLength(keptRequest.text));
  return {
    request: keptRequest.text,
    response: keptResponse.text,
    truncated: keptRequest.truncated || keptResponse.truncated,
  };
}
