import { Stack, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { LogPage } from "../api/types.js";
import { CursorPager } from "../components/CursorPager.js";
import { QueryState } from "../components/QueryState.js";
import { RecordFiltersBar } from "../components/RecordFiltersBar.js";
import { RequestTable } from "../components/RequestTable.js";
import { useFilteredRecords } from "../components/useFilteredRecords.js";

export default function LogsPage() {
  const { t } = useTranslation();
  const { filters, filter, pages, result } = useFilteredRecords<LogPage>("/api/logs");
  return (
    <Stack>
      <Title order={2}>{t("logs.title")}</Title>
      <RecordFiltersBar value={filters} onChange={filter} />
      <QueryState query={result}>
        {({ logs, nextCursor }) => (
          <>
            <RequestTable rows={logs} />
            <CursorPager pages={pages} nextCursor={nextCursor} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
