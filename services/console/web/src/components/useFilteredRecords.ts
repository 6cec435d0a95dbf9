import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, apiPath } from "../api/client.js";
import { recordQuery } from "../api/filters.js";
import type { RecordFilters } from "../api/types.js";
import { useCursorPages } from "./useCursorPages.js";

const PAGE_SIZE = 50;

/** One page of a filtered, cursor-paginated list (usage records, request logs); new filters start at page one. */
export function useFilteredRecords<T>(path: string) {
  const [filters, setFilters] = useState<RecordFilters>({});
  const pages = useCursorPages();
  const query = recordQuery(filters);
  const result = useQuery({
    queryKey: [path, query, pages.cursor],
    queryFn: () => api.get<T>(apiPath(path, { ...query, limit: PAGE_SIZE, cursor: pages.cursor })),
    placeholderData: keepPreviousData,
  });
  const filter = (next: RecordFilters) => {
    setFilters(next);
    pages.reset();
  };
  return { filters, filter, query, pages, result };
}
