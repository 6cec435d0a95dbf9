import { AreaChart } from "@mantine/charts";
import { Button, Card, Group, SimpleGrid, Stack, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { api } from "../api/client.js";
import type { Overview } from "../api/types.js";
import { QueryState } from "../components/QueryState.js";
import { StatCard } from "../components/StatCard.js";
import { dayChartData } from "../format/chart-data.js";
import { formatYuan } from "../format/money.js";

export default function OverviewPage() {
  const { t, i18n } = useTranslation();
  const yuan = (micros: number) => formatYuan(micros, i18n.language);
  const overview = useQuery({ queryKey: ["overview"], queryFn: () => api.get<Overview>("/api/overview") });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("nav.overview")}</Title>
        <Button component={Link} to="/topup">
          {t("overview.topUp")}
        </Button>
      </Group>
      <QueryState query={overview}>
        {(data) => (
          <>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <StatCard label={t("common.balance")} value={yuan(data.balanceMicros)} testId="balance" />
              <StatCard label={t("overview.spendToday")} value={yuan(data.spendTodayMicros)} testId="spend-today" />
              <StatCard label={t("overview.spendMonth")} value={yuan(data.spendMonthMicros)} testId="spend-month" />
            </SimpleGrid>
            <Card withBorder>
              <Title order={4} mb="sm">
                {t("overview.last30")}
              </Title>
              <AreaChart
                h={260}
                data={dayChartData(data.days)}
                dataKey="day"
                series={[{ name: "cost", label: t("common.cost"), color: "indigo.6" }]}
                valueFormatter={(value) => yuan(value * 1e6)}
                curveType="monotone"
                withDots={false}
              />
            </Card>
          </>
        )}
      </QueryState>
    </Stack>
  );
}
