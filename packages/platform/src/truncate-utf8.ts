/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.from(text);
  let end = Math.max(0, maxBytes);
  // A continuation byte (10xxxxxx) at the cut belongs to a character that started before it.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString(), truncated: true };
}
