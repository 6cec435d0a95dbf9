import { Stack, Tabs, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { CodesPanel } from "../components/operations/CodesPanel.js";
import { OrdersPanel } from "../components/operations/OrdersPanel.js";
import { OverviewPanel } from "../components/operations/OverviewPanel.js";

/** The operators' view of the money: the service at a glance, every order, prepaid codes. */
export default function OperationsPage() {
  const { t } = useTranslation();
  return (
    <Stack>
      <Title order={2}>{t("ops.title")}</Title>
      <Tabs defaultValue="glance" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="glance">{t("ops.glance")}</Tabs.Tab>
          <Tabs.Tab value="orders">{t("ops.orders")}</Tabs.Tab>
          <Tabs.Tab value="codes">{t("ops.codes")}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="glance" pt="md">
          <OverviewPanel />
        </Tabs.Panel>
        <Tabs.Panel value="orders" pt="md">
          <OrdersPanel />
        </Tabs.Panel>
        <Tabs.Panel value="codes" pt="md">
          <CodesPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
