import { Button, Group, Stack, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { apiPath } from "../api/client.js";
import type { UsagePage as Page } from "../api/types.js";
import { CursorPager } from "../components/CursorPager.js";
import { QueryState } from "../components/QueryState.js";
import { RecordFiltersBar } from "../components/RecordFiltersBar.js";
import { RequestTable } from "../components/RequestTable.js";
import { useFilteredRecords } from "../components/useFilteredRecords.js";

export default function UsagePage() {
  const { t } = useTranslation();
  const { filters, filter, query, pages, result } = useFilteredRecords<Page>("/api/usage");
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("usage.title")}</Title>
        <Button component="a" href={apiPath("/api/usage.csv", query)} variant="light" download>
          {t("usage.export")}
        </Button>
      </Group>
      <RecordFiltersBar value={filters} onChange={filter} />
      <QueryState query={result}>
        {({ records, nextCursor }) => (
          <>
            <RequestTable rows={records} withTokens />
            <CursorPager pages={pages} nextCursor={nextCursor} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
