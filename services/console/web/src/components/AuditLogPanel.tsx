import { Button, Code, Group, Stack, Table, Text, TextInput } from "@mantine/core";
import { DatePickerInput } from "@mantine/dates";
import { useDebouncedValue } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { api, apiPath } from "../api/client.js";
import { recordQuery } from "../api/filters.js";
import type { AuditEntry, AuditFilters } from "../api/operator-types.js";
import { formatDateTime } from "../format/time.js";
import { CursorPager } from "./CursorPager.js";
import { QueryState } from "./QueryState.js";
import { TableHeader } from "./TableHeader.js";
import { useCursorPages } from "./useCursorPages.js";

const compact = (value: unknown) => (value === null || value === undefined ? "" : JSON.stringify(value));

/** Every operator's actions, newest first, filtered by actor, account, action and days, and as CSV. */
export function AuditLogPanel({ accountId }: { accountId?: string }) {
  const { t } = useTranslation();
  const [filters, setFilters] = useState<AuditFilters>({ accountId });
  const [debounced] = useDebouncedValue(filters, 300);
  const pages = useCursorPages();
  const set = (patch: Partial<AuditFilters>) => {
    setFilters({ ...filters, ...patch });
    pages.reset();
  };
  const query = recordQuery(debounced);
  const entries = useQuery({
    queryKey: ["operator-audit", query, pages.cursor],
    queryFn: () =>
      api.get<{ entries: AuditEntry[]; nextCursor: string }>(
        apiPath("/api/admin/audit", { ...query, cursor: pages.cursor }),
      ),
    placeholderData: keepPreviousData,
  });
  const text = (name: "actor" | "accountId" | "action", label: string) => (
    <TextInput
      label={label}
      value={filters[name] ?? ""}
      onChange={(event) => set({ [name]: event.currentTarget.value.trim() || undefined })}
    />
  );
  return (
    <Stack>
      <Group align="flex-end" gap="sm">
        {text("actor", t("operators.actor"))}
        {accountId === undefined && text("accountId", t("admin.id"))}
        {text("action", t("operators.action"))}
        <DatePickerInput
          type="range"
          label={t("common.dateRange")}
          value={[filters.from ?? null, filters.to ?? null]}
          onChange={([from, to]) => set({ from: from ?? undefined, to: to ?? undefined })}
          valueFormat="YYYY-MM-DD"
          clearable
          allowSingleDateInRange
          miw={220}
        />
        <Button component="a" href={apiPath("/api/admin/audit.csv", query)} variant="light" download>
          {t("operators.exportCsv")}
        </Button>
      </Group>
      <QueryState query={entries}>
        {({ entries: list, nextCursor }) => (
          <>
            <Table.ScrollContainer minWidth={900}>
              <Table striped data-testid="audit-log">
                <TableHeader
                  labels={[
                    t("common.time"),
                    t("operators.actor"),
                    t("operators.action"),
                    t("operators.account"),
                    t("operators.target"),
                    t("operators.change"),
                  ]}
                />
                <Table.Tbody>
                  {list.map((entry) => (
                    <Table.Tr key={entry.id}>
                      <Table.Td>{formatDateTime(entry.at)}</Table.Td>
                      <Table.Td>
                        <Text size="sm" ff="monospace">
                          {entry.actor}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {t(`operators.roleNames.${entry.actorRole}`)}
                        </Text>
                      </Table.Td>
                      <Table.Td ff="monospace">{entry.action}</Table.Td>
                      <Table.Td>
                        {entry.accountId && (
                          <Link to={`/admin/accounts/${entry.accountId}`}>
                            <Code>{entry.accountId.slice(0, 8)}</Code>
                          </Link>
                        )}
                      </Table.Td>
                      <Table.Td ff="monospace">{entry.target}</Table.Td>
                      <Table.Td>
                        <Text size="xs" ff="monospace">
                          {compact(entry.before)} → {compact(entry.after)}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {list.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
            <CursorPager pages={pages} nextCursor={nextCursor} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
