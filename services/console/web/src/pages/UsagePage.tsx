import { Anchor, Button, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { apiPath } from "../api/client.js";
import type { UsagePage as Page } from "../api/types.js";
import { CursorPager } from "../components/CursorPager.js";
import { OutcomeBadge } from "../components/OutcomeBadge.js";
import { QueryState } from "../components/QueryState.js";
import { RecordFiltersBar } from "../components/RecordFiltersBar.js";
import { useFilteredRecords } from "../components/useFilteredRecords.js";
import { formatYuan } from "../format/money.js";
import { formatDateTime, formatNumber } from "../format/time.js";

export default function UsagePage() {
  const { t, i18n } = useTranslation();
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
            <Table.ScrollContainer minWidth={900}>
              <Table striped highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t("common.time")}</Table.Th>
                    <Table.Th>{t("common.model")}</Table.Th>
                    <Table.Th>{t("usage.endpoint")}</Table.Th>
                    <Table.Th>{t("common.promptTokens")}</Table.Th>
                    <Table.Th>{t("common.completionTokens")}</Table.Th>
                    <Table.Th>{t("common.cost")}</Table.Th>
                    <Table.Th>{t("usage.latency")}</Table.Th>
                    <Table.Th>{t("common.status")}</Table.Th>
                    <Table.Th>{t("usage.requestId")}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {records.map((record) => (
                    <Table.Tr key={record.requestId}>
                      <Table.Td>{formatDateTime(record.createdAt)}</Table.Td>
                      <Table.Td>{record.model}</Table.Td>
                      <Table.Td>{record.endpoint}</Table.Td>
                      <Table.Td>{formatNumber(record.promptTokens, i18n.language)}</Table.Td>
                      <Table.Td>{formatNumber(record.completionTokens, i18n.language)}</Table.Td>
                      <Table.Td>{formatYuan(record.costMicros, i18n.language)}</Table.Td>
                      <Table.Td>{record.latencyMs} ms</Table.Td>
                      <Table.Td>
                        <OutcomeBadge outcome={record.outcome} />
                      </Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={`/logs/${record.requestId}`} size="sm" ff="monospace">
                          {record.requestId}
                        </Anchor>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {records.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
            <CursorPager pages={pages} nextCursor={nextCursor} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
