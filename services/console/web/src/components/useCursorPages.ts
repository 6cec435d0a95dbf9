import { useState } from "react";

/**
 * Walks a cursor-paginated list: the API gives each page the cursor of the next, so going back
 * needs the cursors of the pages already seen.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([""]);
  const cursor = cursors[cursors.length - 1] ?? "";
  return {
    cursor,
    page: cursors.length,
    hasPrevious: cursors.length > 1,
    next: (nextCursor: string) => setCursors((seen) => [...seen, nextCursor]),
    previous: () => setCursors((seen) => (seen.length > 1 ? seen.slice(0, -1) : seen)),
    reset: () => setCursors([""]),
  };
}
