import { Anchor, Table, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import type { LogSummary, UsageRecord } from "../api/types.js";
import { formatYuan } from "../format/money.js";
import { formatDateTime, formatNumber } from "../format/time.js";
import { OutcomeBadge } from "./OutcomeBadge.js";
import { TableHeader } from "./TableHeader.js";

type Row = LogSummary & Partial<Pick<UsageRecord, "promptTokens" | "completionTokens">>;

/** Requests one a row (usage records with their tokens, or request logs), each linking to its log unless `linked` is false (another account's). */
export function RequestTable({
  rows,
  withTokens = false,
  linked = true,
}: {
  rows: Row[];
  withTokens?: boolean;
  linked?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const tokens = (count: number | undefined) => formatNumber(count ?? 0, i18n.language);
  return (
    <>
      <Table.ScrollContainer minWidth={withTokens ? 900 : 760}>
        <Table striped highlightOnHover>
          <TableHeader
            labels={[
              t("common.time"),
              t("common.model"),
              t("usage.endpoint"),
              withTokens && t("common.promptTokens"),
              withTokens && t("common.completionTokens"),
              t("common.cost"),
              t("usage.latency"),
              t("common.status"),
              t("usage.requestId"),
            ]}
          />
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.requestId}>
                <Table.Td>{formatDateTime(row.createdAt)}</Table.Td>
                <Table.Td>{row.model}</Table.Td>
                <Table.Td>{row.endpoint}</Table.Td>
                {withTokens && <Table.Td>{tokens(row.promptTokens)}</Table.Td>}
                {withTokens && <Table.Td>{tokens(row.completionTokens)}</Table.Td>}
                <Table.Td>{formatYuan(row.costMicros, i18n.language)}</Table.Td>
                <Table.Td>{row.latencyMs} ms</Table.Td>
                <Table.Td>
                  <OutcomeBadge outcome={row.outcome} />
                </Table.Td>
                <Table.Td>
                  {linked ? (
                    <Anchor component={Link} to={`/logs/${row.requestId}`} size="sm" ff="monospace">
                      {row.requestId}
                    </Anchor>
                  ) : (
                    <Text size="sm" ff="monospace">
                      {row.requestId}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {rows.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
    </>
  );
}
