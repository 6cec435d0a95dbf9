/** What to send for a Range header against a file of `size` bytes (RFC 9110 §14). */
export type RangeAnswer =
  | { kind: "whole" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

/**
 * Reads `bytes=a-b`, `bytes=a-` and `bytes=-n`. Only one range is served: a multi-range
 * request gets the whole file (allowed by the RFC), and a header that is not a byte range at
 * all is ignored the same way. A range starting past the end cannot be satisfied (416).
 */
export function resolveRange(header: string, size: number): RangeAnswer {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: "whole" };
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return { kind: "whole" };
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size) return { kind: "unsatisfiable" };
  if (end < start) return { kind: "whole" };
  return { kind: "partial", start, end };
}
