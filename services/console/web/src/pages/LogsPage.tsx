import { Anchor, Stack, Table, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import type { LogPage } from "../api/types.js";
import { CursorPager } from "../components/CursorPager.js";
import { OutcomeBadge } from "../components/OutcomeBadge.js";
import { QueryState } from "../components/QueryState.js";
import { RecordFiltersBar } from "../components/RecordFiltersBar.js";
import { useFilteredRecords } from "../components/useFilteredRecords.js";
import { formatYuan } from "../format/money.js";
import { formatDateTime } from "../format/time.js";

export default function LogsPage() {
  const { t, i18n } = useTranslation();
  const { filters, filter, pages, result } = useFilteredRecords<LogPage>("/api/logs");
  return (
    <Stack>
      <Title order={2}>{t("logs.title")}</Title>
      <RecordFiltersBar value={filters} onChange={filter} />
      <QueryState query={result}>
        {({ logs: entries, nextCursor }) => (
          <>
            <Table.ScrollContainer minWidth={760}>
              <Table striped highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t("common.time")}</Table.Th>
                    <Table.Th>{t("common.model")}</Table.Th>
                    <Table.Th>{t("usage.endpoint")}</Table.Th>
                    <Table.Th>{t("common.cost")}</Table.Th>
                    <Table.Th>{t("usage.latency")}</Table.Th>
                    <Table.Th>{t("common.status")}</Table.Th>
                    <Table.Th>{t("usage.requestId")}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {entries.map((entry) => (
                    <Table.Tr key={entry.requestId}>
                      <Table.Td>{formatDateTime(entry.createdAt)}</Table.Td>
                      <Table.Td>{entry.model}</Table.Td>
                      <Table.Td>{entry.endpoint}</Table.Td>
                      <Table.Td>{formatYuan(entry.costMicros, i18n.language)}</Table.Td>
                      <Table.Td>{entry.latencyMs} ms</Table.Td>
                      <Table.Td>
                        <OutcomeBadge outcome={entry.outcome} />
                      </Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={`/logs/${entry.requestId}`} size="sm" ff="monospace">
                          {entry.requestId}
                        </Anchor>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {entries.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
            <CursorPager pages={pages} nextCursor={nextCursor} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
