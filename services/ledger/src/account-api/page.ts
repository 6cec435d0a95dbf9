import { encodeCursor, type Position } from "./cursor.js";

/**
 * An OpenAI-style list page from up to `limit + 1` rows: the extra row only tells that
 * there is more, and the last row shown is where the next page starts.
 */
export function listPage<Row, Shown>(
  rows: Row[],
  limit: number,
  positionOf: (row: Row) => Position,
  toJson: (row: Row) => Shown,
) {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  const hasMore = rows.length > limit && last !== undefined;
  return {
    object: "list" as const,
    data: shown.map(toJson),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(positionOf(last)) : null,
  };
}
