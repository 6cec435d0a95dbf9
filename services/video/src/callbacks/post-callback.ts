import { requestPublicUrl } from "@gateway/outbound-http";

export interface CallbackPolicy {
  /** host or host:port values that may be private (a test receiver, an internal hook). */
  allowedPrivateHosts: string[];
  /** The whole delivery's time: connecting, sending, and the receiver's answer. */
  deadlineMs: number;
}

/**
 * POSTs one callback and resolves with the HTTP status. The URL is the client's, so it goes
 * through the SSRF-safe request (public addresses only unless allow-listed, connection pinned
 * to the checked addresses, no redirects followed). The status line is the answer: the body is
 * dropped unread. A receiver slower than the deadline, even one trickling bytes, is abandoned.
 */
export async function postCallback(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: CallbackPolicy,
): Promise<number> {
  const { response, close } = await requestPublicUrl(new URL(url), {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body,
    allowedPrivateHosts: policy.allowedPrivateHosts,
    connectTimeoutMs: policy.deadlineMs,
    signal: AbortSignal.timeout(policy.deadlineMs),
  });
  await close();
  return response.statusCode;
}
