/** Fetch's Headers or Node's IncomingHttpHeaders (lower-case names), so both clients and servers can pass theirs. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export function headerOf(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
