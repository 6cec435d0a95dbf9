import { BarChart } from "@mantine/charts";
import { Card, Group, SimpleGrid, Stack, Table, Title } from "@mantine/core";
import { DatePickerInput } from "@mantine/dates";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiPath } from "../../api/client.js";
import type { OperationsOverview } from "../../api/types.js";
import { formatYuan } from "../../format/money.js";
import { formatNumber, lastDays } from "../../format/time.js";
import { AccountName } from "../AccountName.js";
import { QueryState } from "../QueryState.js";
import { StatCard } from "../StatCard.js";
import { TableHeader } from "../TableHeader.js";

const percent = (rate: number, locale: string) =>
  new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 }).format(rate);

/** Top-ups and spend per day, the accounts and models that spent most, channels' error rates. */
export function OverviewPanel() {
  const { t, i18n } = useTranslation();
  const [range, setRange] = useState<[string | null, string | null]>(lastDays(30));
  const [from, to] = range;
  const overview = useQuery({
    queryKey: ["ops-overview", from, to],
    queryFn: () => api.get<OperationsOverview>(apiPath("/api/admin/overview", { from: from ?? "", to: to ?? "" })),
    enabled: Boolean(from && to),
    placeholderData: keepPreviousData,
  });
  const yuan = (micros: number) => formatYuan(micros, i18n.language);
  return (
    <Stack>
      <Group>
        <DatePickerInput
          type="range"
          label={t("common.dateRange")}
          value={range}
          onChange={setRange}
          valueFormat="YYYY-MM-DD"
          allowSingleDateInRange
          miw={220}
        />
      </Group>
      <QueryState query={overview}>
        {(data) => {
          const sum = (pick: (day: OperationsOverview["days"][number]) => number) =>
            data.days.reduce((total, day) => total + pick(day), 0);
          const chart = data.days.map((day) => ({
            day: day.day.slice(5),
            topUps: day.topUpMicros / 1e6,
            spend: day.spendMicros / 1e6,
          }));
          return (
            <>
              <SimpleGrid cols={{ base: 1, sm: 3 }}>
                <StatCard label={t("ops.topUps")} value={yuan(sum((day) => day.topUpMicros))} testId="ops-topups" />
                <StatCard label={t("ops.spend")} value={yuan(sum((day) => day.spendMicros))} />
                <StatCard
                  label={t("common.requests")}
                  value={formatNumber(
                    sum((day) => day.requests),
                    i18n.language,
                  )}
                />
              </SimpleGrid>
              <Card withBorder>
                <Title order={4} mb="sm">
                  {t("ops.topUpsPerDay")}
                </Title>
                <BarChart
                  h={260}
                  data={chart}
                  dataKey="day"
                  series={[
                    { name: "topUps", label: t("ops.topUps"), color: "teal.6" },
                    { name: "spend", label: t("ops.spend"), color: "indigo.6" },
                  ]}
                  valueFormatter={(value) => yuan(value * 1e6)}
                  withLegend
                />
              </Card>
              <SimpleGrid cols={{ base: 1, md: 2 }}>
                <Card withBorder>
                  <Title order={4} mb="sm">
                    {t("ops.topAccounts")}
                  </Title>
                  <Table striped data-testid="ops-top-accounts">
                    <TableHeader labels={[t("ops.account"), t("common.requests"), t("ops.spend")]} />
                    <Table.Tbody>
                      {data.topAccounts.map((account) => (
                        <Table.Tr key={account.accountId}>
                          <Table.Td>
                            <AccountName id={account.accountId} name={account.name} />
                          </Table.Td>
                          <Table.Td>{formatNumber(account.requests, i18n.language)}</Table.Td>
                          <Table.Td>{yuan(account.spendMicros)}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Card>
                <Card withBorder>
                  <Title order={4} mb="sm">
                    {t("ops.topModels")}
                  </Title>
                  <Table striped>
                    <TableHeader labels={[t("common.model"), t("common.requests"), t("ops.spend")]} />
                    <Table.Tbody>
                      {data.topModels.map((model) => (
                        <Table.Tr key={model.model}>
                          <Table.Td>{model.model}</Table.Td>
                          <Table.Td>{formatNumber(model.requests, i18n.language)}</Table.Td>
                          <Table.Td>{yuan(model.spendMicros)}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Card>
              </SimpleGrid>
              <Card withBorder>
                <Title order={4} mb="sm">
                  {t("ops.channelErrors")}
                </Title>
                <BarChart
                  h={Math.max(160, data.channels.length * 40)}
                  data={data.channels.map((channel) => ({ channel: channel.channel, rate: channel.errorRate * 100 }))}
                  dataKey="channel"
                  orientation="vertical"
                  yAxisProps={{ width: 160 }}
                  series={[{ name: "rate", label: t("ops.errorRate"), color: "red.6" }]}
                  valueFormatter={(value) => percent(value / 100, i18n.language)}
                />
                <Table striped mt="md" data-testid="ops-channels">
                  <TableHeader labels={[t("ops.channel"), t("common.requests"), t("ops.errors"), t("ops.errorRate")]} />
                  <Table.Tbody>
                    {data.channels.map((channel) => (
                      <Table.Tr key={channel.channel}>
                        <Table.Td>{channel.channel}</Table.Td>
                        <Table.Td>{formatNumber(channel.requests, i18n.language)}</Table.Td>
                        <Table.Td>{formatNumber(channel.errors, i18n.language)}</Table.Td>
                        <Table.Td>{percent(channel.errorRate, i18n.language)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Card>
            </>
          );
        }}
      </QueryState>
    </Stack>
  );
}
