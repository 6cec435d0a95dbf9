import dayjs from "dayjs";

/** Filters as API query parameters: picked days become the instants from the first day's start to the last day's end. */
export function recordQuery<Filters extends object>(
  filters: Filters & { from?: string; to?: string },
): Record<string, string | undefined> {
  return {
    ...filters,
    from: filters.from && dayjs(filters.from).startOf("day").toISOString(),
    to: filters.to && dayjs(filters.to).add(1, "day").startOf("day").toISOString(),
  };
}
