import { Anchor, Code, Stack, Table, Tabs, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { api, apiPath } from "../api/client.js";
import type { AdminAccountPage } from "../api/types.js";
import { AuditLogPanel } from "../components/AuditLogPanel.js";
import { CatalogueView } from "../components/CatalogueView.js";
import { CursorPager } from "../components/CursorPager.js";
import { CatalogueHistoryPanel } from "../components/catalogue/CatalogueHistoryPanel.js";
import { ChannelsPanel } from "../components/catalogue/ChannelsPanel.js";
import { GroupsPanel } from "../components/catalogue/GroupsPanel.js";
import { ModelsPanel } from "../components/catalogue/ModelsPanel.js";
import { QueryState } from "../components/QueryState.js";
import { RolesPanel } from "../components/RolesPanel.js";
import { TableHeader } from "../components/TableHeader.js";
import { useCursorPages } from "../components/useCursorPages.js";
import { formatYuan } from "../format/money.js";
import { formatDateTime } from "../format/time.js";

function AccountsPanel() {
  const { t, i18n } = useTranslation();
  const [search, setSearch] = useState("");
  const [query] = useDebouncedValue(search, 300);
  const pages = useCursorPages();
  const accounts = useQuery({
    queryKey: ["admin-accounts", query, pages.cursor],
    queryFn: () => api.get<AdminAccountPage>(apiPath("/api/admin/accounts", { query, cursor: pages.cursor })),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack>
      <TextInput
        label={t("common.search")}
        placeholder={t("admin.query")}
        value={search}
        onChange={(event) => {
          setSearch(event.currentTarget.value);
          pages.reset();
        }}
        maw={360}
      />
      <QueryState query={accounts}>
        {({ accounts: list, nextCursor }) => (
          <>
            <Table.ScrollContainer minWidth={640}>
              <Table striped highlightOnHover>
                <TableHeader labels={[t("keys.name"), t("admin.id"), t("common.balance"), t("keys.created")]} />
                <Table.Tbody>
                  {list.map((account) => (
                    <Table.Tr key={account.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`/admin/accounts/${account.id}`}>
                          {account.name}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Code>{account.id}</Code>
                      </Table.Td>
                      <Table.Td>{formatYuan(account.balanceMicros, i18n.language)}</Table.Td>
                      <Table.Td>{formatDateTime(account.createdAt)}</Table.Td>
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

export default function AdminPage() {
  const { t } = useTranslation();
  // The open tab is in the address (?tab=audit), so an account's page can link back to it.
  const [params, setParams] = useSearchParams();
  // Panels mount when first opened: the router's views are fetched only for an admin who looks.
  return (
    <Stack>
      <Title order={2}>{t("admin.pageTitle")}</Title>
      <Tabs
        value={params.get("tab") ?? "accounts"}
        onChange={(tab) => setParams(tab && tab !== "accounts" ? { tab } : {}, { replace: true })}
        keepMounted={false}
      >
        <Tabs.List>
          <Tabs.Tab value="accounts">{t("admin.title")}</Tabs.Tab>
          <Tabs.Tab value="roles">{t("operators.roles")}</Tabs.Tab>
          <Tabs.Tab value="audit">{t("operators.audit")}</Tabs.Tab>
          <Tabs.Tab value="channels">{t("channels.title")}</Tabs.Tab>
          <Tabs.Tab value="models">{t("catalogueEdit.modelsTab")}</Tabs.Tab>
          <Tabs.Tab value="groups">{t("catalogueEdit.groupsTab")}</Tabs.Tab>
          <Tabs.Tab value="catalogue">{t("catalogue.title")}</Tabs.Tab>
          <Tabs.Tab value="catalogue-history">{t("catalogueEdit.historyTab")}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="accounts" pt="md">
          <AccountsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="roles" pt="md">
          <RolesPanel />
        </Tabs.Panel>
        <Tabs.Panel value="audit" pt="md">
          <AuditLogPanel />
        </Tabs.Panel>
        <Tabs.Panel value="channels" pt="md">
          <ChannelsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="catalogue" pt="md">
          <CatalogueView />
        </Tabs.Panel>
        <Tabs.Panel value="models" pt="md">
          <ModelsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="groups" pt="md">
          <GroupsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="catalogue-history" pt="md">
          <CatalogueHistoryPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
