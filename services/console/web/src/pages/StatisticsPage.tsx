import { BarChart } from "@mantine/charts";
import { Card, Group, SegmentedControl, SimpleGrid, Stack, Table, TextInput, Title } from "@mantine/core";
import { DatePickerInput } from "@mantine/dates";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiPath } from "../api/client.js";
import type { Statistics } from "../api/types.js";
import { QueryState } from "../components/QueryState.js";
import { StatCard } from "../components/StatCard.js";
import { TableHeader } from "../components/TableHeader.js";
import { dayChartData, modelChartData } from "../format/chart-data.js";
import { formatYuan } from "../format/money.js";
import { formatNumber, lastDays } from "../format/time.js";

type Metric = "requests" | "tokens" | "cost";

export default function StatisticsPage() {
  const { t, i18n } = useTranslation();
  const [range, setRange] = useState<[string | null, string | null]>(lastDays(30));
  const [model, setModel] = useState("");
  const [metric, setMetric] = useState<Metric>("cost");
  const [from, to] = range;
  const statistics = useQuery({
    queryKey: ["statistics", from, to, model],
    queryFn: () => api.get<Statistics>(apiPath("/api/statistics", { from: from ?? "", to: to ?? "", model })),
    enabled: Boolean(from && to),
    placeholderData: keepPreviousData,
  });
  const format = (value: number) =>
    metric === "cost" ? formatYuan(value * 1e6, i18n.language) : formatNumber(value, i18n.language);
  const series = [
    { name: metric, label: t(metric === "tokens" ? "common.tokens" : `common.${metric}`), color: "indigo.6" },
  ];
  return (
    <Stack>
      <Title order={2}>{t("statistics.title")}</Title>
      <Group align="flex-end">
        <DatePickerInput
          type="range"
          label={t("common.dateRange")}
          value={range}
          onChange={setRange}
          valueFormat="YYYY-MM-DD"
          allowSingleDateInRange
          miw={220}
        />
        <TextInput
          label={t("common.model")}
          placeholder={t("common.anyModel")}
          value={model}
          onChange={(event) => setModel(event.currentTarget.value)}
        />
        <SegmentedControl
          aria-label={t("statistics.metric")}
          value={metric}
          onChange={(value) => setMetric(value as Metric)}
          data={[
            { value: "cost", label: t("common.cost") },
            { value: "requests", label: t("common.requests") },
            { value: "tokens", label: t("common.tokens") },
          ]}
        />
      </Group>
      <QueryState query={statistics}>
        {(data) => (
          <>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <StatCard
                label={t("common.requests")}
                value={formatNumber(data.totals.requests, i18n.language)}
                testId="total-requests"
              />
              <StatCard
                label={t("common.tokens")}
                value={formatNumber(data.totals.promptTokens + data.totals.completionTokens, i18n.language)}
              />
              <StatCard label={t("common.cost")} value={formatYuan(data.totals.costMicros, i18n.language)} />
            </SimpleGrid>
            <Card withBorder>
              <Title order={4} mb="sm">
                {t("statistics.byDay")}
              </Title>
              <BarChart h={260} data={dayChartData(data.byDay)} dataKey="day" series={series} valueFormatter={format} />
            </Card>
            <Card withBorder>
              <Title order={4} mb="sm">
                {t("statistics.byModel")}
              </Title>
              <BarChart
                h={Math.max(160, data.byModel.length * 40)}
                data={modelChartData(data.byModel)}
                dataKey="model"
                orientation="vertical"
                yAxisProps={{ width: 140 }}
                series={series}
                valueFormatter={format}
              />
              <Table.ScrollContainer minWidth={600} mt="md">
                <Table striped>
                  <TableHeader
                    labels={[
                      t("common.model"),
                      t("common.requests"),
                      t("common.promptTokens"),
                      t("common.completionTokens"),
                      t("common.cost"),
                    ]}
                  />
                  <Table.Tbody>
                    {data.byModel.map((row) => (
                      <Table.Tr key={row.model}>
                        <Table.Td>{row.model}</Table.Td>
                        <Table.Td>{formatNumber(row.requests, i18n.language)}</Table.Td>
                        <Table.Td>{formatNumber(row.promptTokens, i18n.language)}</Table.Td>
                        <Table.Td>{formatNumber(row.completionTokens, i18n.language)}</Table.Td>
                        <Table.Td>{formatYuan(row.costMicros, i18n.language)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Card>
          </>
        )}
      </QueryState>
    </Stack>
  );
}
