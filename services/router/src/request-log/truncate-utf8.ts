/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.from(text);
  let end = Math.max(0, maxBytes);
  // A continuation byte (10xxxxxx) at the cut belongs to a character that started before it.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString(), truncated: true };
}

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
